// A pass-through HTTP proxy in front of an inference server (the simulator's vLLM protocol) that keeps
// every `/v1/completions` exchange as the server answered it: the prompt ids sent, the ids and logprobs
// returned. Tests check captured trajectories against it, independently of the capture code.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One token-in exchange as the inference server answered it. */
export interface Exchange {
  promptIds: number[];
  ids: number[];
  logprobs: number[];
}

export interface RecordingProxy {
  url: string;
  exchanges: Exchange[];
  close(): Promise<void>;
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const exchanges: Exchange[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    // a caller that hangs up cancels the upstream request too, as a real client's abort would
    const gone = new AbortController();
    res.once("close", () => gone.abort());
    let upstream: Response;
    let text: string;
    try {
      upstream = await fetch(`${target}${req.url}`, {
        method: req.method ?? "GET",
        headers: { "content-type": "application/json" },
        signal: gone.signal,
        ...(req.method === "POST" && { body }),
      });
      text = await upstream.text();
    } catch {
      res.destroy();
      return;
    }
    if (req.url === "/v1/completions" && upstream.ok) {
      const answer = JSON.parse(text);
      const prompt = JSON.parse(body).prompt;
      if (Array.isArray(prompt))
        exchanges.push({
          promptIds: prompt,
          ids: answer.choices[0].token_ids,
          logprobs: answer.choices[0].logprobs.token_logprobs,
        });
    }
    res.writeHead(upstream.status, { "content-type": "application/json" }).end(text);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

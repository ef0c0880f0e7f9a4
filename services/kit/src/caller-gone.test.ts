// httpCallerGone over a real HTTP server on loopback: a client that hangs up aborts the signal; a
// response that completes does not.
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { httpCallerGone } from "./caller-gone.ts";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

/** A server whose one handler gets the signal; `respond` decides whether it ever answers. */
async function serve(respond: boolean) {
  let resolveSignal!: (s: AbortSignal) => void;
  const signal = new Promise<AbortSignal>((r) => {
    resolveSignal = r;
  });
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => {
    resolveClosed = r;
  });
  server = createServer((_req, res) => {
    resolveSignal(httpCallerGone(res));
    res.once("close", resolveClosed);
    if (respond) res.end("ok");
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { port, signal, closed };
}

describe("httpCallerGone", () => {
  it("aborts, saying so, when the client hangs up before the response", async () => {
    const { port, signal } = await serve(false);
    const req = request({ host: "127.0.0.1", port, path: "/" });
    req.on("error", () => {});
    req.end();
    const gone = await signal;
    expect(gone.aborted).toBe(false);
    const aborted = new Promise((r) => gone.addEventListener("abort", r, { once: true }));
    req.destroy();
    await aborted;
    expect((gone.reason as Error).message).toBe("the client disconnected");
  });

  it("does not abort once the response is complete, even when the client then goes", async () => {
    const { port, signal, closed } = await serve(true);
    const body = await new Promise<string>((resolve, reject) => {
      request({ host: "127.0.0.1", port, path: "/", agent: false }, (res) => {
        let text = "";
        res.on("data", (d) => {
          text += d;
        });
        res.on("end", () => resolve(text));
      })
        .on("error", reject)
        .end();
    });
    expect(body).toBe("ok");
    await closed; // the response has closed (the connection too: no agent), and nobody is "gone"
    expect((await signal).aborted).toBe(false);
  });
});

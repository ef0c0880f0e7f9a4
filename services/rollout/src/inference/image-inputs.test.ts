// A vision-language prompt's images on the wire: vLLM gets them beside the token prompt as
// `multi_modal_data.image`, SGLang as `image_data`, each a data URL of the bytes, in order; a prompt
// without images sends neither field. A node:http server on 127.0.0.1 records each body.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SglangSampler } from "./sglang.ts";
import { samplingParamsSchema, type TokenSampler } from "./types.ts";
import { VllmSampler } from "./vllm.ts";

const servers: Server[] = [];
const samplers: TokenSampler[] = [];
afterEach(async () => {
  await Promise.all(samplers.splice(0).map((s) => s.close()));
  await Promise.all(
    servers.splice(0).map((s) => {
      s.closeAllConnections();
      return new Promise((r) => s.close(r));
    }),
  );
});

/** Answers every request with `reply`, recording each JSON body. */
async function recordingServer(reply: unknown): Promise<{ url: string; bodies: Record<string, unknown>[] }> {
  const bodies: Record<string, unknown>[] = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => {
      raw += c.toString();
    });
    req.on("end", () => {
      if (raw) bodies.push(JSON.parse(raw) as Record<string, unknown>);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(req.url === "/v1/models" ? { data: [{ id: "m" }] } : reply));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

const sampling = samplingParamsSchema.parse({ max_tokens: 4 });
const images = [
  { mimeType: "image/png", data: Buffer.from("first image bytes") },
  { mimeType: "image/jpeg", data: Buffer.from("second image bytes") },
];
const dataUrls = [
  `data:image/png;base64,${Buffer.from("first image bytes").toString("base64")}`,
  `data:image/jpeg;base64,${Buffer.from("second image bytes").toString("base64")}`,
];

describe("image inputs on the wire", () => {
  it("vLLM: multi_modal_data.image beside the token prompt, in order; none without images", async () => {
    const { url, bodies } = await recordingServer({
      choices: [{ token_ids: [7], logprobs: { token_logprobs: [-0.5] }, finish_reason: "stop" }],
    });
    const vllm = new VllmSampler({ urls: [url], model: "m" });
    samplers.push(vllm);
    await vllm.generate({ promptIds: [1, 2, 3], images, sampling });
    await vllm.generate({ promptIds: [1, 2, 3], sampling });
    expect(bodies.map((b) => [b.prompt, b.multi_modal_data])).toEqual([
      [[1, 2, 3], { image: dataUrls }],
      [[1, 2, 3], undefined],
    ]);
  });

  it("SGLang: image_data beside input_ids, in order; none without images", async () => {
    const { url, bodies } = await recordingServer({
      output_ids: [7],
      meta_info: { finish_reason: { type: "stop" }, output_token_logprobs: [[-0.5, 7, null]] },
    });
    const sglang = new SglangSampler({ urls: [url] });
    samplers.push(sglang);
    await sglang.generate({ promptIds: [1, 2, 3], images, sampling });
    await sglang.generate({ promptIds: [1, 2, 3], sampling });
    expect(bodies.map((b) => [b.input_ids, b.image_data])).toEqual([
      [[1, 2, 3], dataUrls],
      [[1, 2, 3], undefined],
    ]);
  });
});

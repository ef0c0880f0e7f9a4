// What the inference client reads from a server it does not trust: a body over
// `maxResponseBytes` is dropped unread (RESPONSE_TOO_LARGE) and its connection closed; an error body
// reaches the error message only as a short one-line excerpt without control or format characters.
// Against real HTTP servers on 127.0.0.1 that answer what a hostile or broken server would.
import { once } from "node:events";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SglangSampler } from "./sglang.ts";
import { type InferenceError, samplingParamsSchema } from "./types.ts";

const sampling = samplingParamsSchema.parse({ max_tokens: 8 });
const live: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const x of live.splice(0).reverse()) await x.close();
});

/** A server whose every answer is `answer(res)`; `url` is its base URL. */
async function hostile(answer: (res: ServerResponse) => void): Promise<{ url: string }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    answer(res);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  live.push({
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function client(url: string, maxResponseBytes?: number): SglangSampler {
  const s = new SglangSampler({
    urls: [url],
    retries: 0,
    ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }),
  });
  live.push(s);
  return s;
}

async function failure(p: Promise<unknown>): Promise<InferenceError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "expected the request to fail").toBeDefined();
  return error as InferenceError;
}

describe("response bounds", () => {
  it("drops a 2xx body over max_response_bytes unread and closes its connection", async () => {
    const total = 64 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, "a");
    let written = 0;
    let closedNow: () => void = () => {};
    const closed = new Promise<void>((resolve) => {
      closedNow = resolve;
    });
    const { url } = await hostile((res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(total) });
      res.on("close", () => closedNow());
      const pump = () => {
        while (written < total && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    });
    const error = await failure(client(url, 1024 * 1024).generate({ promptIds: [1, 2, 3], sampling }));
    expect(error.code).toBe("RESPONSE_TOO_LARGE");
    expect(error.message).toContain("inference.max_response_bytes (1048576 bytes)");
    await closed;
    // The client stopped reading: the server got no further than the cap plus the sockets' buffers.
    expect(written).toBeLessThan(total / 4);
  });

  it("quotes an error body as a short, one-line excerpt without control characters", async () => {
    const body = `\x1b[31mboom\x1b[0m\n\u202Eevil\u200B ${"x".repeat(1_000_000)}`;
    const { url } = await hostile((res) => {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(body);
    });
    const error = await failure(client(url).generate({ promptIds: [1, 2, 3], sampling }));
    expect(error.code).toBe("HTTP_ERROR");
    expect(error.message).toMatch(/answered 500: \?\[31mboom\?\[0m \?evil\? x+…$/);
    expect(error.message).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    const excerpt = error.message.slice(error.message.indexOf("answered 500: ") + 14);
    expect([...excerpt].length).toBeLessThanOrEqual(201);
  });

  it("reads an answer under the limit as usual", async () => {
    const { url } = await hostile((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ text: "", output_ids: [], meta_info: { finish_reason: { type: "stop" } } }));
    });
    const error = await failure(client(url, 16).generate({ promptIds: [1, 2, 3], sampling }));
    expect(error.code).toBe("RESPONSE_TOO_LARGE");
    const fine = await client(url)
      .generate({ promptIds: [1, 2, 3], sampling })
      .then(
        () => "ok",
        (e: InferenceError) => e.code,
      );
    expect(fine).not.toBe("RESPONSE_TOO_LARGE");
  });

  it("decodes a body sent in pieces whole (a character split between chunks intact), a byte-order mark kept", async () => {
    const json = JSON.stringify({
      text: "",
      output_ids: [1],
      meta_info: {
        finish_reason: { type: "stop", matched: "é😀" },
        output_token_logprobs: [[-0.5, 1, null]],
      },
    });
    const bytes = Buffer.from(json);
    const split = bytes.indexOf(Buffer.from("😀")) + 2; // inside the four bytes of 😀
    const { url } = await hostile((res) => {
      res.writeHead(200, { "content-type": "application/json" }); // chunked: no content-length
      res.write(bytes.subarray(0, split));
      setImmediate(() => res.end(bytes.subarray(split)));
    });
    const result = await client(url).generate({ promptIds: [1, 2, 3], sampling });
    expect(result.matchedStop).toBe("é😀");

    // JSON.parse refuses a byte-order mark: such a body is not JSON (never silently stripped)
    const bom = await hostile((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(`\uFEFF${json}`);
    });
    const error = await failure(client(bom.url).generate({ promptIds: [1, 2, 3], sampling }));
    expect(error.code).toBe("BAD_RESPONSE");
    expect(error.message).toContain("not JSON");
  });
});

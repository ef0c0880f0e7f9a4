// The Tinker client against a scripted HTTP server on 127.0.0.1: futures polled through both pending
// forms, failed futures in both servers' shapes, bad answers → clear errors naming endpoint and field,
// retries on 5xx and connection errors only, the API key header, cancellation; and the sampler on top.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { InferenceError, samplingParamsSchema } from "@rlfactory/rollout";
import { afterEach, describe, expect, it, vi } from "vitest";
import { isTinkerApiError, type TinkerApiError } from "./errors.ts";
import { TinkerClient } from "./tinker-client.ts";
import { TinkerSampler } from "./tinker-sampler.ts";
import { tensor } from "./tinker-schema.ts";

interface Seen {
  path: string;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}
type Answer = { status: number; body: unknown } | "hang";

const live: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const x of live.splice(0).reverse()) await x.close();
});

/** A server answering each request with `answer(request, index among requests to that path)`. */
async function scripted(answer: (seen: Seen, n: number) => Answer): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (c: Buffer) => {
      text += c.toString();
    });
    req.on("end", () => {
      const s: Seen = { path: req.url ?? "", body: text ? JSON.parse(text) : {}, headers: req.headers };
      const n = seen.filter((x) => x.path === s.path).length;
      seen.push(s);
      const a = answer(s, n);
      if (a === "hang") return;
      res.writeHead(a.status, { "content-type": "application/json" });
      res.end(typeof a.body === "string" ? a.body : JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  live.push({
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function client(
  url: string,
  extra: Partial<ConstructorParameters<typeof TinkerClient>[0]> = {},
): TinkerClient {
  const c = new TinkerClient({
    baseUrl: url,
    pollIntervalMs: 1,
    retryInitialDelayMs: 1,
    retryMaxDelayMs: 5,
    ...extra,
  });
  live.push(c);
  return c;
}

async function failure(p: Promise<unknown>): Promise<TinkerApiError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!isTinkerApiError(e)) throw new Error(`expected a TinkerApiError, got ${String(e)}`);
  return e;
}

const datum = {
  model_input: { chunks: [{ type: "encoded_text" as const, tokens: [1, 2] }] },
  loss_fn_inputs: {
    target_tokens: tensor([2, 3], "int64"),
    weights: tensor([0, 1], "float32"),
    logprobs: tensor([0, -0.5], "float32"),
    advantages: tensor([0, 1], "float32"),
  },
};
const fbOutput = { loss_fn_output_type: "scalar", loss_fn_outputs: [{}], metrics: { "loss:sum": 1.5 } };
const future = (id: string) => ({ status: 200, body: { future_id: id, status: "pending", request_id: id } });
const fbArgs = { modelId: "m", seqId: 1, data: [datum], lossFn: "importance_sampling" as const };

describe("TinkerClient futures", () => {
  it("polls retrieve_future through a 408 (SkyRL) and a try_again (Tinker) to the result", async () => {
    const { url, seen } = await scripted((s, n) => {
      if (s.path === "/api/v1/forward_backward") return future("7");
      if (n === 0) return { status: 408, body: { detail: "Timeout waiting for result" } };
      if (n === 1)
        return { status: 200, body: { type: "try_again", request_id: "7", queue_state: "active" } };
      return { status: 200, body: fbOutput };
    });
    const out = await client(url, { apiKey: "tml-k" }).forwardBackward(fbArgs);
    expect(out.metrics).toEqual({ "loss:sum": 1.5 });
    expect(seen.map((s) => s.path)).toEqual([
      "/api/v1/forward_backward",
      "/api/v1/retrieve_future",
      "/api/v1/retrieve_future",
      "/api/v1/retrieve_future",
    ]);
    expect(seen[1]!.body).toEqual({ request_id: "7" });
    expect(seen.every((s) => s.headers["x-api-key"] === "tml-k")).toBe(true);
    expect(seen[0]!.body).toMatchObject({
      model_id: "m",
      seq_id: 1,
      forward_backward_input: { loss_fn: "importance_sampling" },
    });
  });

  it("reports a failed future with the server's reason, in SkyRL's and Tinker's shapes", async () => {
    const skyrl = await scripted((s) =>
      s.path === "/api/v1/optim_step" ? future("3") : { status: 400, body: { detail: "Model m not loaded" } },
    );
    const e1 = await failure(
      client(skyrl.url).optimStep({
        modelId: "m",
        adam: { learning_rate: 1e-4, beta1: 0.9, beta2: 0.95, eps: 1e-12, weight_decay: 0 },
      }),
    );
    expect(e1.code).toBe("REQUEST_FAILED");
    expect(e1.message).toBe(
      "/api/v1/optim_step: future 3 of /api/v1/optim_step: retrieve_future answered 400: Model m not loaded",
    );

    const tinker = await scripted((s) =>
      s.path === "/api/v1/forward_backward"
        ? future("4")
        : { status: 200, body: { error: "bad tokens", category: "user" } },
    );
    const e2 = await failure(client(tinker.url).forwardBackward(fbArgs));
    expect(e2.code).toBe("REQUEST_FAILED");
    expect(e2.message).toContain("future 4 of /api/v1/forward_backward failed (user): bad tokens");
  });

  it("turns an answer off the schema into BAD_RESPONSE naming the endpoint and the field", async () => {
    const { url } = await scripted((s) =>
      s.path === "/api/v1/forward_backward"
        ? future("5")
        : { status: 200, body: { loss_fn_output_type: "scalar", loss_fn_outputs: [] } },
    );
    const e = await failure(client(url).forwardBackward(fbArgs));
    expect(e.code).toBe("BAD_RESPONSE");
    expect(e.endpoint).toBe("/api/v1/forward_backward");
    expect(e.message).toMatch(/the result of future 5 .* does not match the Tinker API schema \(metrics: /);

    const noId = await scripted(() => ({ status: 200, body: { status: "pending" } }));
    const e3 = await failure(client(noId.url).forwardBackward(fbArgs));
    expect(e3.message).toMatch(
      /^\/api\/v1\/forward_backward: the answer does not match the Tinker API schema \(request_id: /,
    );

    const notJson = await scripted(() => ({ status: 200, body: "<html>proxy</html>" }));
    const e4 = await failure(client(notJson.url).forwardBackward(fbArgs));
    expect(e4.code).toBe("BAD_RESPONSE");
    expect(e4.message).toContain("not JSON: <html>proxy</html>");

    const badSampler = await scripted((s) =>
      s.path === "/api/v1/save_weights_for_sampler"
        ? future("6")
        : { status: 200, body: { path: "/tmp/weights" } },
    );
    const e5 = await failure(client(badSampler.url).saveWeightsForSampler({ modelId: "m", name: "x" }));
    expect(e5.message).toMatch(/path: expected tinker:\/\/MODEL_ID\/CHECKPOINT/);
  });
});

describe("TinkerClient retries", () => {
  it("retries 5xx and then succeeds; never retries a 4xx, whose detail it reports", async () => {
    const flaky = await scripted((s, n) => {
      if (s.path === "/api/v1/save_weights" && n < 2) return { status: 503, body: { detail: "busy" } };
      if (s.path === "/api/v1/save_weights") return future("9");
      return { status: 200, body: { path: "tinker://m/weights/s1", type: "save_weights" } };
    });
    expect(await client(flaky.url).saveWeights({ modelId: "m", name: "s1" })).toEqual({
      path: "tinker://m/weights/s1",
    });
    expect(flaky.seen.filter((s) => s.path === "/api/v1/save_weights")).toHaveLength(3);

    const refused = await scripted(() => ({
      status: 422,
      body: {
        detail: [
          { loc: ["body", "path"], msg: "String should match pattern", type: "string_pattern_mismatch" },
        ],
      },
    }));
    const e = await failure(client(refused.url).saveWeights({ modelId: "m", name: "s1" }));
    expect(e.code).toBe("HTTP_ERROR");
    expect(e.status).toBe(422);
    expect(e.message).toBe("/api/v1/save_weights: answered 422: body.path: String should match pattern");
    expect(refused.seen).toHaveLength(1);
  });

  it("gives up on a server that cannot be reached with UNAVAILABLE after its retries", async () => {
    const { url } = await scripted(() => ({ status: 200, body: {} }));
    await live.pop()!.close(); // nothing listens there any more
    const e = await failure(client(url, { retries: 2 }).createSession({ sdkVersion: "t" }));
    expect(e.code).toBe("UNAVAILABLE");
    expect(e.message).toContain(`${url} could not be reached`);
  });

  it("stops at once when the caller's signal aborts, even while a poll is held", async () => {
    const { url, seen } = await scripted((s) => (s.path === "/api/v1/asample" ? future("1") : "hang"));
    const abort = new AbortController();
    const pending = client(url).sample(
      {
        num_samples: 1,
        prompt: { chunks: [{ type: "encoded_text", tokens: [1] }] },
        sampling_params: { max_tokens: 4, temperature: 1, top_k: -1, top_p: 1 },
        model_path: "tinker://m/s",
      },
      abort.signal,
    );
    // Abort once the client's poll is held by the server, not after a guessed delay.
    await vi.waitFor(() => expect(seen.some((s) => s.path !== "/api/v1/asample")).toBe(true), {
      timeout: 5_000,
    });
    abort.abort();
    const e = await failure(pending);
    expect(e.code).toBe("CANCELLED");
  });
});

describe("TinkerSampler", () => {
  const sampling = samplingParamsSchema.parse({ max_tokens: 16, temperature: 0.7, seed: 11 });

  it("samples from the weights it was given and reports their version", async () => {
    const { url, seen } = await scripted((s) =>
      s.path === "/api/v1/asample"
        ? future("2")
        : {
            status: 200,
            body: { sequences: [{ stop_reason: "stop", tokens: [5, 6], logprobs: [-0.25, -1] }] },
          },
    );
    const sampler = new TinkerSampler(client(url), { stopTokenIds: [151645] });
    sampler.setWeights({ path: "tinker://m/sampler-v000003", version: 3 });
    const out = await sampler.generate({ promptIds: [1, 2, 3], sampling });
    expect(out).toMatchObject({ ids: [5, 6], logprobs: [-0.25, -1], finishReason: "stop", weightVersion: 3 });
    expect(seen[0]!.body).toEqual({
      num_samples: 1,
      prompt: { chunks: [{ type: "encoded_text", tokens: [1, 2, 3] }] },
      sampling_params: { max_tokens: 16, temperature: 0.7, top_p: 1, top_k: -1, seed: 11, stop: [151645] },
      model_path: "tinker://m/sampler-v000003",
      type: "sample",
    });
    await sampler.generate({ promptIds: [1], sampling: { ...sampling, stop: ["</search>"] } });
    expect((seen[2]!.body.sampling_params as { stop: unknown }).stop).toEqual(["</search>"]); // strings or ids, never both
  });

  it("fails the turn clearly on logprobs that do not align with the ids", async () => {
    const { url } = await scripted((s) =>
      s.path === "/api/v1/asample"
        ? future("2")
        : {
            status: 200,
            body: { sequences: [{ stop_reason: "length", tokens: [5, 6], logprobs: [-0.25] }] },
          },
    );
    const sampler = new TinkerSampler(client(url));
    sampler.setWeights({ path: "tinker://m/s", version: 0 });
    const e = await sampler.generate({ promptIds: [1], sampling }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InferenceError);
    expect((e as InferenceError).code).toBe("BAD_RESPONSE");
    expect((e as InferenceError).message).toContain("2 token ids but 1 logprobs");
  });
});

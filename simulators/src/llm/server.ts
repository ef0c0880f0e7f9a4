// The simulated inference server (a TEST AND LOAD-TESTING FIXTURE, not a model): fastify routes for
// vLLM's `/v1/completions`, SGLang's `/generate` and OpenAI `/v1/chat/completions`, all answered by one
// scripted policy through the real tokenizer. Every generate request goes through the same steps, in
// this order: validate the body (400) → record it → fault injection (503) → simulate → wait out the
// latency model on a timer (aborted when the client hangs up) → answer in the protocol's shape.
import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { finished } from "node:stream/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { hash32, rngStream } from "@rlfactory/kit";
import { type ModelTokenizer, qwen3Tokenizer } from "@rlfactory/rollout";
import Fastify, { type FastifyReply, type FastifyRequest } from "fastify";
import { z } from "zod";
import { chatRequestSchema, chatResponse, chatSimRequest } from "./chat-protocol.ts";
import { errorBody, invalidBody, SimulatedLlmError } from "./errors.ts";
import { createFaultInjector } from "./faults.ts";
import type { SimImage } from "./image-inputs.ts";
import { latencyOptionsSchema, requestDelayMs } from "./latency-model.ts";
import { policyOptionsSchema } from "./policies/policy.ts";
import { SIMULATED_POLICY_NAMES, simulatedPolicy } from "./policies/registry.ts";
import {
  generateRequestSchema,
  generateResponse,
  generateSimRequest,
  modelInfo,
  updateWeightVersionSchema,
} from "./sglang-protocol.ts";
import { createSimulator, type SimRequest, type Simulation } from "./simulator.ts";
import {
  completionRequestSchema,
  completionResponse,
  completionSimRequest,
  detokenizeRequestSchema,
  detokenizeResponse,
  modelList,
  tokenizeRequestSchema,
  tokenizeResponse,
} from "./vllm-protocol.ts";

/** Qwen3's context length, the default `maxModelLen`. */
export const DEFAULT_MAX_MODEL_LEN = 40_960;

export const simulatedLlmOptionsSchema = z.object({
  host: z.string().min(1).default("127.0.0.1"),
  /** 0: any free port. */
  port: z.int().min(0).max(65_535).default(0),
  policy: z.string().refine((p) => SIMULATED_POLICY_NAMES.includes(p), {
    error: (issue) =>
      `unknown simulated policy ${JSON.stringify(issue.input)} (known: ${SIMULATED_POLICY_NAMES.join(", ")})`,
  }),
  policyOptions: policyOptionsSchema.default(policyOptionsSchema.parse({})),
  latency: latencyOptionsSchema.default(latencyOptionsSchema.parse({})),
  /** Seeds the latency and fault streams and requests that carry no seed of their own. */
  seed: z.int().default(0),
  /** SGLang `weight_version` (changed by `POST /update_weight_version` or `setWeightVersion`). */
  weightVersion: z.string().min(1).default("default"),
  failFirst: z.int().min(0).default(0),
  failRate: z.number().min(0).max(1).default(0),
  /**
   * Which logprobs the server returns, like vLLM's `--logprobs-mode`: `processed` (of the distribution
   * sampled from, after temperature; SGLang's default) or `raw` (temperature 1; vLLM's default
   * `raw_logprobs`). Equal at temperature 1 and when greedy. See logprobs.ts.
   */
  logprobsMode: z.enum(["raw", "processed"]).default("processed"),
  /** Context length: longer prompts (plus max_tokens on vLLM) are rejected as the engines do. */
  maxModelLen: z.int().positive().default(DEFAULT_MAX_MODEL_LEN),
  /**
   * The model path the server reports having loaded: vLLM `/v1/models` `root`, SGLang
   * `/get_model_info` `model_path` and `tokenizer_path` (what `tokenizer.path: auto` reads). Default:
   * the model name (root, model_path) and the tokenizer's source (tokenizer_path).
   */
  modelPath: z.string().min(1).optional(),
  /**
   * Keep every generate request in `requests` (tests read them). `rlf-sim llm` keeps none: nobody can
   * read them from outside its process, and a long run would keep every prompt's ids (8,192 × 31
   * turns of the engine bench grew it past 3 GB).
   */
  recordRequests: z.boolean().default(true),
});

export type SimulatedLlmOptions = z.input<typeof simulatedLlmOptionsSchema> & {
  /** Default: Qwen3's (`qwen3Tokenizer()`). */
  tokenizer?: ModelTokenizer;
};

export type Protocol = "vllm" | "sglang" | "chat";

/** One generate request as the server received it (recorded before fault injection, so failed ones too). */
export interface RecordedRequest {
  protocol: Protocol;
  promptIds: number[];
  /** The request's sampling parameters, as the simulator read them. */
  sampling: Pick<SimRequest, "temperature" | "top_p" | "top_k" | "max_tokens" | "stop" | "seed">;
  /** `Date.now()` on arrival. */
  at: number;
  /** The images it carried (vLLM `multi_modal_data.image`, SGLang `image_data`), decoded, in order. */
  images: SimImage[];
}

export interface SimulatedLlm {
  /** `http://HOST:PORT`, no trailing slash. */
  readonly url: string;
  /** What every response's `model` field says: `simulated-<policy>`. */
  readonly model: string;
  /** Every generate request so far, in arrival order (the live array); none with `recordRequests: false`. */
  readonly requests: RecordedRequest[];
  readonly weightVersion: string;
  /** Requests waiting out their latency right now (they are served concurrently, on timers). */
  readonly inFlight: number;
  setWeightVersion(version: string): void;
  /** Stops listening; requests still waiting on their latency are answered 503. */
  close(): Promise<void>;
}

export async function startSimulatedLlm(options: SimulatedLlmOptions): Promise<SimulatedLlm> {
  const { tokenizer: givenTokenizer, ...rest } = options;
  const opts = simulatedLlmOptionsSchema.parse(rest);
  const tokenizer = givenTokenizer ?? (await qwen3Tokenizer());
  const policy = simulatedPolicy(opts.policy);
  const simulator = createSimulator({
    tokenizer,
    policy,
    policyOptions: opts.policyOptions,
    logprobsMode: opts.logprobsMode,
  });
  const model = `simulated-${policy.name}`;
  const faults = createFaultInjector(opts);
  const latencyRandom = rngStream(hash32("latency", opts.seed));
  const requests: RecordedRequest[] = [];
  /** Requests waiting out their latency, with the response each one owes. */
  const waiting = new Map<AbortController, ServerResponse>();
  let weightVersion = opts.weightVersion;
  let served = 0;

  // forceCloseConnections: on close every socket goes, idle keep-alive ones included (close() first lets
  // the requests still waiting answer 503)
  // No deadline on reading a request (Node's headersTimeout is 60 s), as vLLM's server has none: a
  // simulated model that thousands of requests in flight keep busy reads some of them late, and
  // answered those 408 (the engine bench at 8,192 in flight)
  const app = Fastify({
    logger: false,
    bodyLimit: 64 * 1024 * 1024,
    forceCloseConnections: true,
    http: { headersTimeout: 0, requestTimeout: 0 },
  });

  app.setErrorHandler((err, _req, reply) => {
    if (err instanceof SimulatedLlmError) return reply.code(err.status).send(err.toBody());
    const status = (err as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      // fastify's own client errors: malformed JSON, wrong content type, body too large
      return reply.code(status).send(errorBody("BadRequestError", (err as Error).message));
    }
    return reply.code(500).send(errorBody("InternalServerError", (err as Error).message));
  });
  app.setNotFoundHandler((req, reply) =>
    reply
      .code(404)
      .send(errorBody("NotFoundError", `no route ${req.method} ${req.url} on the simulated LLM`)),
  );

  /** The shared path of every generate route (see the header for the order of steps). */
  async function serve<B>(
    protocol: Protocol,
    schema: z.ZodType<B>,
    req: FastifyRequest,
    reply: FastifyReply,
    toSim: (body: B) => SimRequest,
    answer: (body: B, request: SimRequest, sim: Simulation, e2eLatencyS: number) => unknown,
  ) {
    const started = performance.now();
    const parsed = schema.safeParse(req.body);
    if (!parsed.success) throw invalidBody(parsed.error);
    const request = toSim(parsed.data);
    simulator.validate(request);
    if (opts.recordRequests) requests.push(record(protocol, request));
    const fault = faults.next();
    if (fault !== undefined) throw new SimulatedLlmError("ServiceUnavailableError", fault);

    const sim = simulator.run(request, hash32("request", opts.seed, served++));
    const delay = requestDelayMs(opts.latency, sim.ids.length, latencyRandom);
    if (delay > 0) {
      const controller = new AbortController();
      waiting.set(controller, reply.raw);
      const onClose = () => {
        if (!reply.raw.writableFinished) controller.abort("client-disconnected");
      };
      reply.raw.once("close", onClose);
      try {
        await sleep(delay, undefined, { signal: controller.signal });
      } catch {
        if (controller.signal.reason === "client-disconnected") return reply.hijack(); // nobody to answer
        throw new SimulatedLlmError("ServiceUnavailableError", "the simulated LLM is shutting down");
      } finally {
        waiting.delete(controller);
        reply.raw.off("close", onClose);
      }
    }
    return answer(parsed.data, request, sim, (performance.now() - started) / 1000);
  }

  const id = (prefix: string) => `${prefix}${randomUUID().replaceAll("-", "")}`;

  // vLLM (OpenAI-compatible)
  app.post("/v1/completions", (req, reply) =>
    serve(
      "vllm",
      completionRequestSchema,
      req,
      reply,
      (body) => completionSimRequest(body, tokenizer, opts.maxModelLen),
      (body, request, sim) => completionResponse({ id: id("cmpl-"), model, body, request, sim, tokenizer }),
    ),
  );
  app.post("/v1/chat/completions", (req, reply) =>
    serve(
      "chat",
      chatRequestSchema,
      req,
      reply,
      (body) => chatSimRequest(body, tokenizer, opts.maxModelLen),
      (body, request, sim) =>
        chatResponse({
          id: id("chatcmpl-"),
          model,
          request,
          sim,
          parseTools: (body.tools?.length ?? 0) > 0,
        }),
    ),
  );
  app.get("/v1/models", async () => modelList(model, opts.maxModelLen, opts.modelPath ?? model));
  app.post("/tokenize", async (req) =>
    tokenizeResponse(parseBody(tokenizeRequestSchema, req.body), tokenizer, opts.maxModelLen),
  );
  app.post("/detokenize", async (req) =>
    detokenizeResponse(parseBody(detokenizeRequestSchema, req.body), tokenizer),
  );

  // SGLang (native)
  app.post("/generate", (req, reply) =>
    serve(
      "sglang",
      generateRequestSchema,
      req,
      reply,
      (body) => generateSimRequest(body, tokenizer, opts.maxModelLen),
      (body, request, sim, e2eLatencyS) =>
        generateResponse({
          id: body.rid ?? randomUUID().replaceAll("-", ""),
          body,
          request,
          sim,
          tokenizer,
          weightVersion, // read when answering: a version change during the request shows
          e2eLatencyS,
        }),
    ),
  );
  app.get("/get_model_info", async () =>
    modelInfo(opts.modelPath ?? model, opts.modelPath ?? tokenizer.source, weightVersion),
  );
  app.get("/get_weight_version", async () => ({ weight_version: weightVersion }));
  app.post("/update_weight_version", async (req) => {
    const body = parseBody(updateWeightVersionSchema, req.body);
    weightVersion = body.new_version;
    return {
      success: true,
      message: `Weight version updated to ${body.new_version}`,
      new_version: body.new_version,
    };
  });

  // both engines
  app.get("/health", async (_req, reply) => reply.code(200).send(""));
  app.get("/health_generate", async (_req, reply) => reply.code(200).send(""));

  // vLLM's server (uvicorn) listens with a backlog of 2,048; Node's default, 511, drops connections
  // when thousands of requests in flight connect at once (the engine bench at 8,192 in flight)
  await app.listen({ host: opts.host, port: opts.port, backlog: 2048 });
  const address = app.server.address();
  if (address === null || typeof address === "string")
    throw new Error("the simulated LLM did not bind a TCP port");
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;

  return {
    url: `http://${host}:${address.port}`,
    model,
    requests,
    get weightVersion() {
      return weightVersion;
    },
    get inFlight() {
      return waiting.size;
    },
    setWeightVersion(version) {
      weightVersion = z.string().min(1).parse(version);
    },
    async close() {
      const owed = [...waiting.values()];
      for (const c of waiting.keys()) c.abort("shutdown");
      await Promise.all(owed.map((res) => finished(res).catch(() => {})));
      await app.close();
    },
  };
}

function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw invalidBody(parsed.error);
  return parsed.data;
}

function record(protocol: Protocol, request: SimRequest): RecordedRequest {
  return {
    protocol,
    promptIds: [...request.promptIds],
    sampling: {
      temperature: request.temperature,
      top_p: request.top_p,
      ...(request.top_k === undefined ? {} : { top_k: request.top_k }),
      max_tokens: request.max_tokens,
      stop: [...request.stop],
      ...(request.seed === undefined ? {} : { seed: request.seed }),
    },
    at: Date.now(),
    images: [...(request.images ?? [])],
  };
}

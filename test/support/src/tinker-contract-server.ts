// A CONTRACT TEST SERVER for the Tinker training API (not a trainer): it speaks the routes `rlf train`
// uses as SkyRL's Tinker-compatible server does (skyrl/tinker/api.py), validates every request body
// against the pinned schemas (services/train/src/tinker-schema.ts; an off-schema body gets a
// FastAPI-style 422 and is listed in `violations`), records every call, and answers with futures:
// each POST returns a request_id, and the first retrieve_future of each future answers "pending"
// (a 200 `try_again` for odd ids as hosted Tinker does, a 408 for even ids as SkyRL does).
//
// The "model" is deterministic bookkeeping: a model is a count of optimizer steps. Sampling forwards to
// the simulated inference server (vLLM /v1/completions with token ids), so the rollout loop makes real
// multi-turn tool calls; save_weights_for_sampler sets the simulator's weight version; forward_backward
// answers metrics computed from the datums it got (its "training logprobs" are the rollout logprobs,
// so the ratio is 1 and `loss:sum` = −Σ weights·advantages); save_weights / load_weights store and
// restore the step count under tinker://MODEL/weights/NAME.

import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { TINKER_REQUEST_SCHEMAS } from "@rlfactory/train";
import Fastify, { type FastifyReply } from "fastify";
import { z } from "zod";
import { type Deferred, deferred } from "./deferred.ts";

export interface RecordedTinkerCall {
  /** The route, e.g. `/api/v1/forward_backward`. */
  path: string;
  body: unknown;
  /** For POSTs answered with a future: its request_id. For retrieve_future: what it answered. */
  requestId?: string;
  answer?: "pending-try_again" | "pending-408" | "result" | "failed";
  /** create_model: the model it created. */
  modelId?: string;
  apiKey: string | undefined;
}

export interface ContractViolation {
  path: string;
  body: unknown;
  error: string;
}

export interface ContractSample {
  modelPath: string;
  /** Optimizer steps in the sampler weights sampled from. */
  optimSteps: number;
  /** The simulator's weight version when the sample ran. */
  simWeightVersion: string;
  promptIds: number[];
  tokens: number[];
  logprobs: number[];
}

export interface ContractModel {
  modelId: string;
  baseModel: string;
  rank: number;
  optimSteps: number;
  /** forward_backward calls since the last optim_step (gradients accumulated). */
  pendingForwardBackward: number;
  /** Requests other than create_model (load_weights must come before any). */
  requests: number;
  lastSeqId: number;
  loadedFrom: string | null;
  samplerCheckpoints: Map<string, number>;
}

export interface TinkerContractServer {
  url: string;
  sim: SimulatedLlm;
  calls: RecordedTinkerCall[];
  violations: ContractViolation[];
  models: Map<string, ContractModel>;
  samples: ContractSample[];
  /** The next request matching `match` waits (reached resolves) until `release()`. */
  gate(match: (path: string, body: Record<string, unknown>) => boolean): {
    reached: Promise<void>;
    release(): void;
  };
  close(): Promise<void>;
}

export interface TinkerContractServerOptions {
  /** Simulated policy (default `search-then-answer`). */
  policy?: string;
  seed?: number;
  /** When set, every request must carry it as `X-API-Key`. */
  apiKey?: string;
  /** Answer the first poll of every future with "pending" (default true). */
  pendingFirst?: boolean;
}

type Outcome = { ok: true; body: unknown } | { ok: false; status: number; detail: string };

interface Future {
  id: string;
  path: string;
  polls: number;
  outcome: Promise<Outcome>;
}

class HttpError extends Error {
  readonly status: number;
  constructor(status: number, detail: string) {
    super(detail);
    this.status = status;
  }
}

const completionSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        token_ids: z.array(z.number().int()),
        logprobs: z.looseObject({ token_logprobs: z.array(z.number()) }),
        finish_reason: z.string(),
      }),
    )
    .min(1),
});

export async function startTinkerContractServer(
  options: TinkerContractServerOptions = {},
): Promise<TinkerContractServer> {
  const sim = await startSimulatedLlm({
    policy: options.policy ?? "search-then-answer",
    seed: options.seed ?? 0,
  });
  const pendingFirst = options.pendingFirst ?? true;
  const calls: RecordedTinkerCall[] = [];
  const violations: ContractViolation[] = [];
  const models = new Map<string, ContractModel>();
  const samples: ContractSample[] = [];
  const sessions = new Set<string>();
  const futures = new Map<string, Future>();
  /** Training states saved with save_weights: tinker path → optimizer steps. */
  const states = new Map<string, number>();
  const gates: {
    match: (path: string, body: Record<string, unknown>) => boolean;
    reached: Deferred<void>;
    open: Deferred<void>;
    used: boolean;
  }[] = [];
  let nextFuture = 0;
  let nextModel = 0;
  let nextSession = 0;

  const app = Fastify({ logger: false, bodyLimit: 256 * 1024 * 1024, forceCloseConnections: true });
  app.setErrorHandler((err, _req, reply) => {
    if (err instanceof HttpError) return reply.code(err.status).send({ detail: err.message });
    const status = (err as { statusCode?: number }).statusCode ?? 500;
    return reply.code(status).send({ detail: (err as Error).message });
  });

  function model(modelId: string): ContractModel {
    const m = models.get(modelId);
    if (m === undefined) throw new HttpError(404, "Model not found");
    return m;
  }

  function submit(path: string, run: () => Promise<unknown> | unknown): string {
    nextFuture += 1;
    const id = String(nextFuture);
    const outcome = (async (): Promise<Outcome> => {
      try {
        return { ok: true, body: await run() };
      } catch (e) {
        return { ok: false, status: e instanceof HttpError ? e.status : 500, detail: (e as Error).message };
      }
    })();
    futures.set(id, { id, path, polls: 0, outcome });
    return id;
  }

  /** A request other than create_model counts toward load_weights' "first request" rule. */
  function countRequest(m: ContractModel): void {
    m.requests += 1;
  }

  /** seq_id bookkeeping, on receipt: the SDK numbers a model's requests 1, 2, …; a gap or a repeat is a violation. */
  function checkSeqId(path: string, body: Record<string, unknown>): void {
    const m = typeof body.model_id === "string" ? models.get(body.model_id) : undefined;
    if (m === undefined || typeof body.seq_id !== "number") return;
    if (body.seq_id !== m.lastSeqId + 1) {
      violations.push({
        path,
        body,
        error: `seq_id ${body.seq_id} after ${m.lastSeqId} on model ${m.modelId}`,
      });
    }
    m.lastSeqId = body.seq_id;
  }

  async function sample(body: z.infer<typeof TINKER_REQUEST_SCHEMAS.asample>): Promise<unknown> {
    const modelPath = body.model_path!;
    const match = /^tinker:\/\/([^/]+)\/(?:sampler_weights\/)?([^/]+)$/.exec(modelPath)!;
    const m = model(match[1]!);
    const optimSteps = m.samplerCheckpoints.get(match[2]!);
    if (optimSteps === undefined) throw new HttpError(404, `Checkpoint not found: ${modelPath}`);
    const promptIds = body.prompt.chunks.flatMap((c) => c.tokens);
    const p = body.sampling_params;
    const stop = p.stop ?? [];
    const strings = stop.filter((s): s is string => typeof s === "string");
    const ids = stop.filter((s): s is number => typeof s === "number");
    const simWeightVersion = sim.weightVersion;
    const res = await fetch(`${sim.url}/v1/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: sim.model,
        prompt: promptIds,
        max_tokens: p.max_tokens,
        temperature: p.temperature,
        top_p: p.top_p,
        top_k: p.top_k,
        ...(p.seed === undefined || p.seed === null ? {} : { seed: p.seed }),
        stop: strings,
        stop_token_ids: ids,
        logprobs: 0,
        return_token_ids: true,
        include_stop_str_in_output: true,
        skip_special_tokens: false,
      }),
    });
    if (!res.ok) throw new HttpError(500, `simulated LLM answered ${res.status}: ${await res.text()}`);
    const choice = completionSchema.parse(await res.json()).choices[0]!;
    const tokens = choice.token_ids;
    const logprobs = choice.logprobs.token_logprobs;
    samples.push({ modelPath, optimSteps, simWeightVersion, promptIds, tokens, logprobs });
    return {
      sequences: [{ stop_reason: choice.finish_reason === "length" ? "length" : "stop", tokens, logprobs }],
      prompt_logprobs: null,
    };
  }

  function forwardBackward(
    m: ContractModel,
    input: z.infer<typeof TINKER_REQUEST_SCHEMAS.forwardBackward>["forward_backward_input"],
  ) {
    m.pendingForwardBackward += 1;
    let loss = 0;
    let weighted = 0;
    let weightedAdvantage = 0;
    const outputs = input.data.map((d) => {
      const w = d.loss_fn_inputs.weights.data;
      const a = d.loss_fn_inputs.advantages?.data ?? w.map(() => 0);
      const lp = d.loss_fn_inputs.logprobs?.data ?? w.map(() => 0);
      // the fixture's "current policy" gives each target the logprob the sampler did: ratio 1
      const elementwise = w.map((wi, i) => -wi * a[i]! * Math.exp(lp[i]! - lp[i]!));
      for (let i = 0; i < w.length; i++) {
        loss += elementwise[i]!;
        weighted += w[i]!;
        weightedAdvantage += w[i]! * a[i]!;
      }
      return {
        logprobs: { data: lp, dtype: "float32", shape: [lp.length] },
        elementwise_loss: { data: elementwise, dtype: "float32", shape: [elementwise.length] },
      };
    });
    return {
      loss_fn_output_type: "scalar",
      loss_fn_outputs: outputs,
      metrics: {
        "loss:sum": loss,
        "weights:sum": weighted,
        "weighted_advantage:sum": weightedAdvantage,
        "datums:count": input.data.length,
      },
    };
  }

  /** Every POST: API key, schema, record, gate, then the route's own work. */
  async function handle(
    path: string,
    schema: z.ZodType,
    rawBody: unknown,
    headers: Record<string, unknown>,
    reply: FastifyReply,
    work: (body: never, call: RecordedTinkerCall) => Promise<unknown> | unknown,
  ): Promise<unknown> {
    const apiKey = typeof headers["x-api-key"] === "string" ? headers["x-api-key"] : undefined;
    const call: RecordedTinkerCall = { path, body: rawBody, apiKey };
    calls.push(call);
    if (options.apiKey !== undefined && apiKey !== options.apiKey) {
      violations.push({ path, body: rawBody, error: `X-API-Key ${JSON.stringify(apiKey ?? null)}` });
      return reply.code(401).send({ detail: "Invalid API key" });
    }
    const parsed = schema.safeParse(rawBody);
    if (!parsed.success) {
      const detail = parsed.error.issues.map((i) => ({
        loc: ["body", ...i.path],
        msg: i.message,
        type: i.code,
      }));
      violations.push({ path, body: rawBody, error: z.prettifyError(parsed.error) });
      return reply.code(422).send({ detail });
    }
    checkSeqId(path, rawBody as Record<string, unknown>);
    const gate = gates.find((g) => !g.used && g.match(path, rawBody as Record<string, unknown>));
    if (gate !== undefined) {
      gate.used = true;
      gate.reached.resolve();
      await gate.open.promise;
    }
    const answer = await work(parsed.data as never, call);
    if (
      answer !== null &&
      typeof answer === "object" &&
      "request_id" in answer &&
      path !== "/api/v1/retrieve_future"
    ) {
      call.requestId = String((answer as { request_id: unknown }).request_id);
      if (path === "/api/v1/create_model")
        call.modelId = String((answer as unknown as { model_id: unknown }).model_id);
    }
    return answer;
  }

  const routes: Record<string, { schema: z.ZodType; work: (body: never) => Promise<unknown> | unknown }> = {
    "/api/v1/create_session": {
      schema: TINKER_REQUEST_SCHEMAS.createSession,
      work: () => {
        nextSession += 1;
        const sessionId = `session_${String(nextSession).padStart(4, "0")}`;
        sessions.add(sessionId);
        return { type: "create_session", session_id: sessionId };
      },
    },
    "/api/v1/session_heartbeat": {
      schema: TINKER_REQUEST_SCHEMAS.sessionHeartbeat,
      work: (body: { session_id: string }) => {
        if (!sessions.has(body.session_id)) throw new HttpError(404, "Session not found");
        return { type: "session_heartbeat" };
      },
    },
    "/api/v1/create_model": {
      schema: TINKER_REQUEST_SCHEMAS.createModel,
      work: (body: z.infer<typeof TINKER_REQUEST_SCHEMAS.createModel>) => {
        if (!sessions.has(body.session_id)) throw new HttpError(404, "Session not found");
        nextModel += 1;
        const modelId = `model_${String(nextModel).padStart(4, "0")}`;
        models.set(modelId, {
          modelId,
          baseModel: body.base_model,
          rank: body.lora_config.rank,
          optimSteps: 0,
          pendingForwardBackward: 0,
          requests: 0,
          lastSeqId: 0,
          loadedFrom: null,
          samplerCheckpoints: new Map(),
        });
        const lora = { rank: body.lora_config.rank, seed: body.lora_config.seed ?? null };
        const id = submit("/api/v1/create_model", () => ({
          model_id: modelId,
          base_model: body.base_model,
          lora_config: lora,
        }));
        return {
          model_id: modelId,
          base_model: body.base_model,
          lora_config: lora,
          status: "created",
          request_id: id,
        };
      },
    },
    "/api/v1/get_info": {
      schema: TINKER_REQUEST_SCHEMAS.getInfo,
      work: (body: { model_id: string }) => {
        const m = model(body.model_id);
        return {
          model_id: m.modelId,
          status: "created",
          model_data: { base_model: m.baseModel, lora_config: { rank: m.rank }, model_name: m.baseModel },
        };
      },
    },
    "/api/v1/forward_backward": {
      schema: TINKER_REQUEST_SCHEMAS.forwardBackward,
      work: (body: z.infer<typeof TINKER_REQUEST_SCHEMAS.forwardBackward>) => {
        const m = model(body.model_id);
        countRequest(m);
        const id = submit("/api/v1/forward_backward", () => forwardBackward(m, body.forward_backward_input));
        return future(id);
      },
    },
    "/api/v1/optim_step": {
      schema: TINKER_REQUEST_SCHEMAS.optimStep,
      work: (body: z.infer<typeof TINKER_REQUEST_SCHEMAS.optimStep>) => {
        const m = model(body.model_id);
        countRequest(m);
        if (m.pendingForwardBackward === 0) {
          violations.push({
            path: "/api/v1/optim_step",
            body,
            error: "optim_step with no forward_backward before it",
          });
        }
        m.pendingForwardBackward = 0;
        m.optimSteps += 1;
        const steps = m.optimSteps;
        return future(submit("/api/v1/optim_step", () => ({ metrics: { "optim_steps:count": steps } })));
      },
    },
    "/api/v1/save_weights_for_sampler": {
      schema: TINKER_REQUEST_SCHEMAS.saveWeightsForSampler,
      work: (body: z.infer<typeof TINKER_REQUEST_SCHEMAS.saveWeightsForSampler>) => {
        const m = model(body.model_id);
        countRequest(m);
        const name = body.path!;
        if (m.samplerCheckpoints.has(name)) {
          throw new HttpError(409, `Checkpoint '${name}' already exists for model '${m.modelId}'`);
        }
        m.samplerCheckpoints.set(name, m.optimSteps);
        sim.setWeightVersion(`${m.modelId}@${m.optimSteps}`);
        return future(
          submit("/api/v1/save_weights_for_sampler", () => ({
            path: `tinker://${m.modelId}/${name}`,
            type: "save_weights_for_sampler",
            sampling_session_id: null,
          })),
        );
      },
    },
    "/api/v1/save_weights": {
      schema: TINKER_REQUEST_SCHEMAS.saveWeights,
      work: (body: z.infer<typeof TINKER_REQUEST_SCHEMAS.saveWeights>) => {
        const m = model(body.model_id);
        countRequest(m);
        const path = `tinker://${m.modelId}/weights/${body.path}`;
        if (states.has(path))
          throw new HttpError(409, `Checkpoint '${body.path}' already exists for model '${m.modelId}'`);
        states.set(path, m.optimSteps);
        return future(submit("/api/v1/save_weights", () => ({ path, type: "save_weights" })));
      },
    },
    "/api/v1/load_weights": {
      schema: TINKER_REQUEST_SCHEMAS.loadWeights,
      work: (body: z.infer<typeof TINKER_REQUEST_SCHEMAS.loadWeights>) => {
        const m = model(body.model_id);
        if (m.requests > 0) {
          throw new HttpError(
            400,
            `LoadWeights is not permitted with seq_id ${body.seq_id ?? m.requests + 1}`,
          );
        }
        countRequest(m);
        const steps = states.get(body.path);
        if (steps === undefined) throw new HttpError(404, `Checkpoint not found: ${body.path}`);
        m.optimSteps = steps;
        m.loadedFrom = body.path;
        return future(submit("/api/v1/load_weights", () => ({ type: "load_weights" })));
      },
    },
    "/api/v1/asample": {
      schema: TINKER_REQUEST_SCHEMAS.asample,
      work: (body: z.infer<typeof TINKER_REQUEST_SCHEMAS.asample>) => {
        if (body.model_path === undefined)
          throw new HttpError(400, "the contract server samples from model_path only");
        return future(submit("/api/v1/asample", () => sample(body)));
      },
    },
  };

  function future(id: string) {
    return { future_id: id, status: "pending", request_id: id };
  }

  for (const [path, route] of Object.entries(routes)) {
    app.post(path, (req, reply) =>
      handle(path, route.schema, req.body, req.headers, reply, (body) => route.work(body)),
    );
  }

  app.post("/api/v1/retrieve_future", (req, reply) =>
    handle(
      "/api/v1/retrieve_future",
      TINKER_REQUEST_SCHEMAS.retrieveFuture,
      req.body,
      req.headers,
      reply,
      async (body: { request_id: string }, call) => {
        call.requestId = body.request_id;
        const f = futures.get(body.request_id);
        if (f === undefined) throw new HttpError(404, "Future not found");
        f.polls += 1;
        if (pendingFirst && f.polls === 1) {
          if (Number(f.id) % 2 === 1) {
            call.answer = "pending-try_again";
            return { type: "try_again", request_id: f.id, queue_state: "active" };
          }
          call.answer = "pending-408";
          throw new HttpError(408, "Timeout waiting for result");
        }
        const outcome = await f.outcome;
        if (outcome.ok) {
          call.answer = "result";
          return outcome.body;
        }
        call.answer = "failed";
        throw new HttpError(outcome.status === 500 ? 500 : 400, outcome.detail);
      },
    ),
  );
  app.get("/api/v1/healthz", async () => ({ status: "ok" }));

  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string")
    throw new Error("the contract server bound no TCP port");

  return {
    url: `http://127.0.0.1:${address.port}`,
    sim,
    calls,
    violations,
    models,
    samples,
    gate(match) {
      const g = { match, reached: deferred<void>(), open: deferred<void>(), used: false };
      gates.push(g);
      return { reached: g.reached.promise, release: () => g.open.resolve() };
    },
    async close() {
      for (const g of gates) g.open.resolve();
      await app.close();
      await sim.close();
    },
  };
}

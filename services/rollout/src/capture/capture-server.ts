// Agent capture: an OpenAI-compatible endpoint in front of the rollout's token-in inference client, so an
// agent program we did not write produces trajectories token for token as our own loop does (issue 27).
//
// Design
// - One server per rollout run; the trajectory's identity is in the path: an agent gets the base URL
//   `{url}/t/{trajectory_id}/v1` and calls `POST …/chat/completions` or `…/completions` on it. Each
//   trajectory id is one `CaptureSession` (capture-session.ts); its requests are processed in arrival
//   order, one at a time, so the prefix check always compares with the request before.
// - A chat request is rendered with the model's own chat template (the rollout's `ModelTokenizer`,
//   generation prompt on, the request's `tools` and `chat_template_kwargs`), exactly as vLLM would.
// - Prefix consistency is checked on the rendered text, not on re-tokenized ids: the session keeps the
//   text its ids encode (prompt text + the decoded sampled ids + observation text). When the new prompt's
//   text starts with it, the ids sent are the session's ids unchanged (sampled ids never re-tokenized)
//   plus the encoded remainder, which becomes an observation turn (mask 0: tool results, user turns,
//   template tokens such as `<|im_end|>\n<|im_start|>assistant\n`). Comparing re-tokenized ids instead
//   would flag BPE merges across a turn boundary that the model never saw; comparing text flags exactly
//   what the agent or the template changed.
// - When it does not extend (a template that drops earlier reasoning, an agent that edits or trims its
//   history), the request is recorded `prefix: "diverged"` with the first differing character and the
//   number of earlier ids it still repeats, and a new segment starts from the whole prompt encoded; each
//   segment becomes its own trajectory (`CaptureSession.trajectories`), so no token is ever silently
//   re-tokenized into a trained turn.
// - The sampled ids and the engine's logprobs go into the record as returned (mask 1). The reply is an
//   OpenAI chat completion: the text decoded without the end token, tool calls parsed by the rollout's
//   tool-call codec (`ToolCallFormat`, Hermes for Qwen3), `arguments` written as vLLM writes them
//   (Python `json.dumps` separators) so an agent that sends them back renders the model's own text.
// - An agent that hangs up cancels its engine request (nothing of it is recorded).
// - Not yet: streaming, `n > 1`, token-id prompts on `/v1/completions`, parallel requests of one
//   trajectory (they are serialised; the second one then diverges from the first's completion and
//   starts a segment).
import type { AddressInfo } from "node:net";
import type { ChatTool, Trajectory, TrajectoryStatus } from "@rlfactory/contracts";
import { httpCallerGone, readOversizedBody } from "@rlfactory/kit";
import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import { z } from "zod";
import {
  InferenceError,
  type SamplingParams,
  samplingParamsSchema,
  type TokenSampler,
} from "../inference/types.ts";
import type { ToolCallFormat } from "../parsers/types.ts";
import type { ModelTokenizer } from "../tokenizer/model-tokenizer.ts";
import { PiecewiseEncoder } from "../tokenizer/piecewise-encoder.ts";
import { CaptureSession } from "./capture-session.ts";
import {
  type ChatCompletionRequest,
  type CompletionRequest,
  chatCompletionRequestSchema,
  completionRequestSchema,
  stopList,
  templateMessages,
} from "./openai-request.ts";
import { pythonJsonDumps } from "./python-json.ts";

export interface CaptureServerOptions {
  /** The rollout's token-in client (vLLM or SGLang). */
  sampler: TokenSampler;
  /** The model's tokenizer and chat template (the same the inference server runs). */
  tokenizer: ModelTokenizer;
  /** The model family's tool-call codec, for `tool_calls` in replies. */
  toolCallFormat: ToolCallFormat;
  /** The `model` the replies name (default `captured`). */
  model?: string;
  /** `max_tokens` when a request gives none (default 1024). */
  defaultMaxTokens?: number;
  host?: string;
  /** 0 (default): any free port. */
  port?: number;
}

export interface CaptureServer {
  /** `http://host:port` */
  readonly url: string;
  /** The OpenAI base URL an agent uses for one trajectory: `{url}/t/{id}/v1`. */
  baseUrl(trajectoryId: string): string;
  /** The session of a trajectory id, if it made a request. */
  session(trajectoryId: string): CaptureSession | undefined;
  /** The session's trajectories (one per prefix-consistent segment); forgets the session. */
  takeTrajectories(
    trajectoryId: string,
    init: { taskId: string; groupId: string; sampleIndex: number; status?: TrajectoryStatus },
  ): Trajectory[];
  /** The session of a trajectory id (undefined when it made no request), forgotten here. */
  takeSession(trajectoryId: string): CaptureSession | undefined;
  close(): Promise<void>;
}

const TRAJECTORY_ID = z.string().regex(/^[A-Za-z0-9._~-]{1,200}$/, "trajectory id: 1-200 of [A-Za-z0-9._~-]");

/** The largest request body an agent may send (its whole conversation, images included). */
const BODY_LIMIT_BYTES = 64 * 1024 * 1024;

/** OpenAI's error body. */
function sendError(reply: FastifyReply, status: number, message: string, type: string): FastifyReply {
  return reply.code(status).send({ error: { message, type, param: null, code: null } });
}

function sampling(
  request: ChatCompletionRequest | CompletionRequest,
  maxTokens: number | null | undefined,
  stops: readonly string[],
  defaultMaxTokens: number,
): SamplingParams {
  return samplingParamsSchema.parse({
    max_tokens: maxTokens ?? defaultMaxTokens,
    ...(request.temperature != null && { temperature: request.temperature }),
    ...(request.top_p != null && { top_p: request.top_p }),
    ...(request.top_k != null && { top_k: request.top_k }),
    ...(request.min_p != null && { min_p: request.min_p }),
    ...(request.seed != null && { seed: request.seed }),
    ...(request.repetition_penalty != null && { repetition_penalty: request.repetition_penalty }),
    stop: [...stopList(request.stop), ...stops],
  });
}

/** Starts the capture endpoint on loopback (or `host`). */
export async function startCaptureServer(options: CaptureServerOptions): Promise<CaptureServer> {
  const { sampler, tokenizer, toolCallFormat: format } = options;
  const model = options.model ?? "captured";
  const defaultMaxTokens = options.defaultMaxTokens ?? 1024;
  const eos = new Set(tokenizer.eosTokenIds);
  const sessions = new Map<string, CaptureSession>();
  // a group's members send the same first request: encoded once
  const prompts = new PiecewiseEncoder(tokenizer);
  let seq = 0;

  const sessionOf = (id: string): CaptureSession => {
    let s = sessions.get(id);
    if (s === undefined) {
      s = new CaptureSession(id, tokenizer, prompts);
      sessions.set(id, s);
    }
    return s;
  };

  /** Renders, checks, samples and records one request; returns the sampled ids and the record. */
  const capture = (
    id: string,
    endpoint: "chat" | "completions",
    text: string,
    params: SamplingParams,
    signal: AbortSignal,
    before?: (session: CaptureSession) => void,
  ) => {
    const session = sessionOf(id);
    return session.run(async () => {
      before?.(session);
      const prepared = session.prepare(text);
      // an agent that hangs up cancels the engine request; nothing of it is recorded
      const r = await sampler.generate({
        promptIds: prepared.promptIds,
        sampling: params,
        sessionId: id,
        signal,
      });
      const record = session.commit(endpoint, text, prepared, {
        ids: r.ids,
        logprobs: r.logprobs,
        finishReason: r.finishReason,
        weightVersion: r.weightVersion,
      });
      const visible = r.ids.length > 0 && eos.has(r.ids.at(-1)!) ? r.ids.slice(0, -1) : r.ids;
      return { result: r, record, session, text: tokenizer.decode(visible) };
    });
  };

  // forceCloseConnections: close() ends every socket (an agent still connected when the run ends gets nothing more)
  const app: FastifyInstance = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT_BYTES,
    forceCloseConnections: true,
  });
  app.setErrorHandler((err, _req, reply) => {
    if (err instanceof z.ZodError)
      return sendError(reply, 400, z.prettifyError(err), "invalid_request_error");
    // the engine's own 4xx (a prompt past the context length, ids outside the vocabulary) is the agent's
    // problem and keeps its status, as vLLM answers it; anything else from the engine is a 502
    if (err instanceof InferenceError) {
      const status = err.status !== undefined && err.status >= 400 && err.status < 500 ? err.status : 502;
      return sendError(
        reply,
        status,
        `inference ${err.code}: ${err.message}`,
        status === 502 ? "upstream_error" : "invalid_request_error",
      );
    }
    const e = err as Error & { statusCode?: number };
    if (typeof e.statusCode === "number" && e.statusCode < 500)
      return sendError(reply, e.statusCode, e.message, "invalid_request_error");
    return sendError(reply, 500, e.message, "internal_error");
  });

  // A body declared over the limit is answered 413 after it has been read (readOversizedBody says why).
  app.addHook("onRequest", async (req, reply) => {
    const oversized = await readOversizedBody(req.raw, BODY_LIMIT_BYTES);
    if (oversized === undefined) return;
    if (!oversized.drained) reply.header("connection", "close");
    const message = `the request body has ${oversized.declared} bytes, more than ${BODY_LIMIT_BYTES}`;
    return sendError(reply, 413, message, "invalid_request_error");
  });

  app.get("/t/:id/v1/models", async () => ({
    object: "list",
    data: [{ id: model, object: "model", created: 0, owned_by: "rlfactory-capture" }],
  }));

  app.post("/t/:id/v1/chat/completions", async (req, reply) => {
    const id = TRAJECTORY_ID.parse((req.params as { id: string }).id);
    const body = chatCompletionRequestSchema.parse(req.body);
    const tools = body.tools && body.tools.length > 0 ? body.tools : undefined;
    const messages = templateMessages(body);
    const text = tokenizer.renderChat(messages, {
      addGenerationPrompt: true,
      ...(tools && { tools: tools as ChatTool[] }),
      ...(body.chat_template_kwargs && { extra: body.chat_template_kwargs }),
    });
    const params = sampling(
      body,
      body.max_completion_tokens ?? body.max_tokens,
      format.stopSequences,
      defaultMaxTokens,
    );
    // the tool results this request sends back answer the session's earlier calls (their `tool_calls`)
    const {
      result,
      record,
      session,
      text: out,
    } = await capture(id, "chat", text, params, httpCallerGone(reply.raw), (s) =>
      s.recordResults(messages as { role: string; content?: unknown; tool_call_id?: string }[]),
    );
    const parsed = format.parse(out);
    const calls = parsed.calls.map((c, i) => ({
      id: `call_${seq}_${i}`,
      type: "function" as const,
      function: { name: c.name, arguments: pythonJsonDumps(c.arguments) },
    }));
    // recorded before the reply leaves, so the agent's answer to them always finds them
    session.recordCalls(
      record.request,
      parsed.calls.map((c, i) => ({
        id: calls[i]!.id,
        name: c.name,
        arguments: c.arguments,
        index: c.index,
      })),
      parsed.answer === undefined ? parsed.malformed : [],
    );
    const cut = calls.length > 0 ? out.indexOf(parsed.calls[0]!.raw) : -1;
    const content = cut >= 0 ? out.slice(0, cut) : out;
    return {
      id: `chatcmpl-capture-${seq++}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: content === "" && calls.length > 0 ? null : content,
            ...(calls.length > 0 && { tool_calls: calls }),
          },
          finish_reason:
            calls.length > 0 ? "tool_calls" : result.finishReason === "abort" ? "stop" : result.finishReason,
        },
      ],
      usage: {
        prompt_tokens: record.prompt_tokens,
        completion_tokens: record.completion_tokens,
        total_tokens: record.prompt_tokens + record.completion_tokens,
      },
    };
  });

  app.post("/t/:id/v1/completions", async (req, reply) => {
    const id = TRAJECTORY_ID.parse((req.params as { id: string }).id);
    const body = completionRequestSchema.parse(req.body);
    const params = sampling(body, body.max_tokens, [], defaultMaxTokens);
    const { result, record, text } = await capture(
      id,
      "completions",
      body.prompt,
      params,
      httpCallerGone(reply.raw),
    );
    return {
      id: `cmpl-capture-${seq++}`,
      object: "text_completion",
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          text,
          finish_reason: result.finishReason === "abort" ? "stop" : result.finishReason,
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: record.prompt_tokens,
        completion_tokens: record.completion_tokens,
        total_tokens: record.prompt_tokens + record.completion_tokens,
      },
    };
  });

  await app.listen({ host: options.host ?? "127.0.0.1", port: options.port ?? 0 });
  const address = app.server.address() as AddressInfo;
  const url = `http://${address.address.includes(":") ? `[${address.address}]` : address.address}:${address.port}`;

  return {
    url,
    baseUrl: (id) => `${url}/t/${TRAJECTORY_ID.parse(id)}/v1`,
    session: (id) => sessions.get(id),
    takeTrajectories(id, init) {
      const s = sessions.get(id);
      if (s === undefined) return [];
      sessions.delete(id);
      return s.trajectories({
        ...init,
        ...(sampler.logprobsKind && { logprobsKind: sampler.logprobsKind }),
      });
    },
    takeSession(id) {
      const s = sessions.get(id);
      sessions.delete(id);
      return s;
    },
    close: () => app.close(),
  };
}

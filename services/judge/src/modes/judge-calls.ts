// What every model mode shares: the judge calls of one request (counted, tokens summed, cancelled by
// the request's signal), the retry rule for unreadable or miscounted outputs, and self-consistency
// aggregation. The modes themselves only render prompts and read verdicts.
import type { ChatBackend, ChatBackendRequest, ChatBackendResponse } from "../backend/chat-backend-types.ts";
import type { JudgeConfig } from "../judge-config.ts";
import { JudgeError } from "../judge-types.ts";
import type { ChatMessage, ResolvedRubric } from "./rubrics.ts";

export interface Sampling {
  temperature: number;
  top_p?: number | undefined;
  max_tokens: number;
  seed?: number | undefined;
}

/** One model-mode request in flight. */
export interface ModeContext {
  backend: ChatBackend;
  rubric: ResolvedRubric;
  sampling: Sampling;
  samples: number;
  retries: JudgeConfig["retries"];
  signal: AbortSignal;
  /** Uniform in [0, 1): draws the per-call shuffle seeds of group mode. */
  random: () => number;
  ledger: CallLedger;
  /** The backend holds answers to the JSON schema: only a JSON answer is a verdict (score-parsing.ts). */
  structured: boolean;
}

/** What a mode answers; the service adds the metadata common to all modes. */
export interface ModeResult {
  score: number;
  scores?: number[];
  winner?: "first" | "second" | "tie";
  sample_scores: number[];
  explanation?: string;
  notes: string[];
  /** Pairwise: some sample's two orders disagreed (position bias; calibration reports the rate). */
  pairwise_flip?: boolean;
}

/** Counts the judge calls of one request and sums their tokens. */
export class CallLedger {
  calls = 0;
  prompt = 0;
  completion = 0;
  model: string | undefined;

  async complete(
    ctx: ModeContext,
    request: Pick<ChatBackendRequest, "messages" | "jsonSchema">,
    sample: number,
  ): Promise<ChatBackendResponse> {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    this.calls++;
    // Distinct samples need distinct seeds, or a seeded backend answers k times the same.
    const seed = ctx.sampling.seed === undefined ? undefined : ctx.sampling.seed + sample;
    const response = await ctx.backend.complete({
      ...request,
      temperature: ctx.sampling.temperature,
      max_tokens: ctx.sampling.max_tokens,
      ...(ctx.sampling.top_p === undefined ? {} : { top_p: ctx.sampling.top_p }),
      ...(seed === undefined ? {} : { seed }),
      signal: ctx.signal,
    });
    this.prompt += response.usage.prompt_tokens;
    this.completion += response.usage.completion_tokens;
    this.model = response.model;
    return response;
  }
}

/**
 * Run `attempt` until it returns, retrying PARSE_ERROR up to `retries.parse` times and COUNT_MISMATCH
 * up to `retries.count` times (each retry is a fresh judge call); the last failure is thrown with the
 * number of attempts in its message.
 */
export async function withRetries<T>(ctx: ModeContext, attempt: () => Promise<T>): Promise<T> {
  let parseLeft = ctx.retries.parse;
  let countLeft = ctx.retries.count;
  let tries = 0;
  for (;;) {
    tries++;
    try {
      return await attempt();
    } catch (err) {
      if (err instanceof JudgeError && err.code === "PARSE_ERROR" && parseLeft > 0) parseLeft--;
      else if (err instanceof JudgeError && err.code === "COUNT_MISMATCH" && countLeft > 0) countLeft--;
      else if (err instanceof JudgeError && (err.code === "PARSE_ERROR" || err.code === "COUNT_MISMATCH"))
        throw new JudgeError(
          err.code,
          `${err.message} (after ${tries} judge call${tries === 1 ? "" : "s"})`,
          {
            cause: err,
          },
        );
      else throw err;
    }
  }
}

/** k independent samples, run concurrently (the backend's pool limits concurrency). */
export function eachSample<T>(ctx: ModeContext, run: (sample: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: ctx.samples }, (_, i) => run(i)));
}

export function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** Most frequent label; a tie between the most frequent ones is `tie`. */
export function majority(labels: readonly ("first" | "second" | "tie")[]): "first" | "second" | "tie" {
  const counts = { first: 0, second: 0, tie: 0 };
  for (const l of labels) counts[l]++;
  const top = Math.max(counts.first, counts.second, counts.tie);
  const leaders = (["first", "second", "tie"] as const).filter((l) => counts[l] === top);
  return leaders.length === 1 && leaders[0] ? leaders[0] : "tie";
}

export type { ChatMessage };

// A Judge over HTTP: the judge service's user-facing contract (services/judge/README.md).
//   POST {url}/v1/judge   content-type: application/json
//   request  { mode: "reference" when the task has gold answers, else "pointwise",
//              task: the question, response: the answer (or, with `judged: "trajectory"`, the sampled
//              turns joined by "\n"), reference?: the gold answers joined by " | ",
//              rubric? / rubric_id?: from the judge component's config }
//   response 2xx { score: number in [0, 1], explanation?: string, ...metadata (ignored) }
//            non-2xx { error: { code, message } }
// Failures are RewardInfraError (component "judge"), never a score: JUDGE_<code> for the service's
// typed failures (JUDGE_BACKEND_UNAVAILABLE, JUDGE_TIMEOUT, JUDGE_PARSE_ERROR, ...), JUDGE_TIMEOUT
// (the request's own timeout), CANCELLED (the caller's signal), JUDGE_UNAVAILABLE (no connection),
// JUDGE_HTTP_ERROR (a non-2xx status without that error body), JUDGE_BAD_RESPONSE (not JSON, or not
// the shape above).

import { goldAnswers, serviceCallCode, type Task } from "@rlfactory/contracts";
import { z } from "zod";
import { oneLine, RewardInfraError } from "./errors.ts";
import type { Judge, JudgeVerdict, RewardJudgeQuery } from "./types.ts";

export const judgeResponseSchema = z.object({
  score: z.number().min(0).max(1),
  explanation: z.string().optional(),
});

/** The judge service's failure body. */
export const judgeErrorBodySchema = z.object({
  error: z.object({ code: z.string().regex(/^[A-Z][A-Z0-9_]*$/), message: z.string() }),
});

/** What the judge component adds to a query (its config): the rubric and what is judged. */
export interface JudgeRubricOptions {
  /** Inline rubric text. */
  rubric?: string | undefined;
  /** A versioned rubric of the judge service. */
  rubric_id?: string | undefined;
  /** Judge the final answer (default) or the whole trajectory's sampled text. */
  judged?: "answer" | "trajectory" | undefined;
}

/** The JSON body of the judge service request (pointwise / reference mode) that asks `query`. */
export function judgeRequestBody(query: RewardJudgeQuery & JudgeRubricOptions): Record<string, unknown> {
  const golds = goldAnswers(query.task);
  const response = query.judged === "trajectory" ? query.sampledTexts.join("\n") : (query.answer ?? "");
  return {
    mode: golds.length > 0 ? "reference" : "pointwise",
    task: questionOf(query.task),
    response,
    ...(golds.length > 0 ? { reference: golds.join(" | ") } : {}),
    ...(query.rubric !== undefined ? { rubric: query.rubric } : {}),
    ...(query.rubric_id !== undefined ? { rubric_id: query.rubric_id } : {}),
  };
}

export interface HttpJudgeOptions {
  /** Extra request headers (e.g. authorization). */
  headers?: Record<string, string>;
  /** Per-request timeout in ms (default 60000); the judge component's deadline also applies. */
  timeoutMs?: number;
}

const COMPONENT = "judge";

export class HttpJudge implements Judge {
  readonly endpoint: string;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;

  constructor(url: string, opts: HttpJudgeOptions = {}) {
    const base = z.url({ protocol: /^https?$/ }).safeParse(url);
    if (!base.success) throw new Error(`HttpJudge: "${url}" is not an http(s) URL`);
    this.endpoint = `${base.data.replace(/\/+$/, "")}/v1/judge`;
    this.#headers = { "content-type": "application/json", ...opts.headers };
    this.#timeoutMs = opts.timeoutMs ?? 60_000;
  }

  async score(query: RewardJudgeQuery & JudgeRubricOptions): Promise<JudgeVerdict> {
    const { signal } = query;
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const body = judgeRequestBody(query);
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.endpoint, {
        method: "POST",
        headers: this.#headers,
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      text = await response.text();
    } catch (err) {
      if (timeout.aborted) {
        throw new RewardInfraError(
          COMPONENT,
          "JUDGE_TIMEOUT",
          `${this.endpoint}: no answer in ${this.#timeoutMs} ms`,
        );
      }
      if (signal?.aborted) throw new RewardInfraError(COMPONENT, "CANCELLED", "judge request cancelled");
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new RewardInfraError(
        COMPONENT,
        "JUDGE_UNAVAILABLE",
        `${this.endpoint}: ${cause?.code ?? cause?.message ?? (err as Error).message}`,
        { cause: err },
      );
    }
    if (!response.ok) {
      const failure = judgeErrorBodySchema.safeParse(parseJson(text));
      if (failure.success) {
        const { code, message } = failure.data.error;
        throw new RewardInfraError(
          COMPONENT,
          serviceCallCode(`JUDGE_${code}`),
          `${this.endpoint}: HTTP ${response.status} ${code}: ${oneLine(message, 300)}`,
        );
      }
      throw new RewardInfraError(
        COMPONENT,
        "JUDGE_HTTP_ERROR",
        `${this.endpoint}: HTTP ${response.status}: ${oneLine(text, 200)}`,
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new RewardInfraError(
        COMPONENT,
        "JUDGE_BAD_RESPONSE",
        `${this.endpoint}: not JSON: ${oneLine(text, 200)}`,
      );
    }
    const parsed = judgeResponseSchema.safeParse(json);
    if (!parsed.success) {
      throw new RewardInfraError(
        COMPONENT,
        "JUDGE_BAD_RESPONSE",
        `${this.endpoint}: ${z.prettifyError(parsed.error).replaceAll("\n", " ")}`,
      );
    }
    const { score, explanation } = parsed.data;
    return explanation === undefined ? { score } : { score, explanation };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The question: `extra_info.question` when the dataset has it, else the last user message. */
export function questionOf(task: Task): string {
  const q = task.extra_info.question;
  if (typeof q === "string") return q;
  const user = task.prompt.findLast((m) => m.role === "user");
  return user?.content ?? "";
}

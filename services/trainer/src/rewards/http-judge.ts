// A Judge over HTTP. PROVISIONAL CONTRACT with the judge service (a later issue; change both sides
// together):
//   POST {url}/v1/judge   content-type: application/json
//   request  { task_id: string, question: string, reference: string[] (gold answers),
//              answer: string | null, trajectory_text: string (the sampled turns, joined by "\n") }
//   response 200 { score: number in [0, 1], explanation?: string }   (other keys are ignored)
// Failures are RewardInfraError (component "judge"), never a score: JUDGE_TIMEOUT (the request's
// own timeout), CANCELLED (the caller's signal), JUDGE_UNAVAILABLE (no connection), JUDGE_HTTP_ERROR
// (a non-2xx status), JUDGE_BAD_RESPONSE (not JSON, or not the shape above).
import { z } from "zod";
import { goldAnswers, type Task } from "../task.ts";
import { oneLine, RewardInfraError } from "./errors.ts";
import type { Judge, JudgeRequest, JudgeVerdict } from "./types.ts";

export const judgeResponseSchema = z.object({
  score: z.number().min(0).max(1),
  explanation: z.string().optional(),
});

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

  async score({ task, answer, sampledTexts, signal }: JudgeRequest): Promise<JudgeVerdict> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const body = {
      task_id: task.id,
      question: questionOf(task),
      reference: goldAnswers(task),
      answer,
      trajectory_text: sampledTexts.join("\n"),
    };
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

/** The question: `extra_info.question` when the dataset has it, else the last user message. */
export function questionOf(task: Task): string {
  const q = task.extra_info.question;
  if (typeof q === "string") return q;
  const user = task.prompt.findLast((m) => m.role === "user");
  return user?.content ?? "";
}

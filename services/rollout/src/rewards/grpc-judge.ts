// A Judge over gRPC: the judge service's rlfactory.v1.Judge (proto/rlfactory/v1/judge.proto), called
// through @rlfactory/clients' JudgeClient at the judge's gRPC address (`host:port`, default port 50053;
// its HTTP port 7005 is for people and curl).
//   request  JudgeRequest { mode: REFERENCE when the task has gold answers, else POINTWISE,
//              task: the question, response: the answer (or, with `judged: "trajectory"`, the sampled
//              turns joined by "\n"), reference?: the gold answers joined by " | ",
//              rubric? / rubric_id?: from the judge component's config }
//   response JudgeResponse { score { score in [0, 1], metadata.explanation } | error { code, message } }
// Failures are RewardInfraError (component "judge"), never a score: JUDGE_<code> for the service's
// typed failures (JUDGE_BACKEND_UNAVAILABLE, JUDGE_TIMEOUT, JUDGE_PARSE_ERROR, ...: the JudgeErrorCode
// without its JUDGE_ERROR_ prefix), JUDGE_TIMEOUT (the call's own deadline, gRPC DEADLINE_EXCEEDED),
// CANCELLED (the caller's signal), JUDGE_UNAVAILABLE (no connection, gRPC UNAVAILABLE), JUDGE_RPC_ERROR
// (any other gRPC status), JUDGE_BAD_RESPONSE (neither a score nor an error, or a score outside [0, 1]).

import { type ServiceError, status } from "@grpc/grpc-js";
import { JudgeClient } from "@rlfactory/clients";
import { goldAnswers, serviceCallCode, type Task } from "@rlfactory/contracts";
import type { JudgeRequest } from "@rlfactory/proto/types/JudgeRequest";
import type { JudgeResponse__Output } from "@rlfactory/proto/types/JudgeResponse";
import { oneLine, RewardInfraError } from "./errors.ts";
import type { Judge, JudgeVerdict, RewardJudgeQuery } from "./types.ts";

/** What the judge component adds to a query (its config): the rubric and what is judged. */
export interface JudgeRubricOptions {
  /** Inline rubric text. */
  rubric?: string | undefined;
  /** A versioned rubric of the judge service. */
  rubric_id?: string | undefined;
  /** Judge the final answer (default) or the whole trajectory's sampled text. */
  judged?: "answer" | "trajectory" | undefined;
}

/** The JudgeRequest message (pointwise / reference mode) that asks `query`. */
export function judgeRequestFor(query: RewardJudgeQuery & JudgeRubricOptions): JudgeRequest {
  const golds = goldAnswers(query.task);
  const response = query.judged === "trajectory" ? query.sampledTexts.join("\n") : (query.answer ?? "");
  return {
    mode: golds.length > 0 ? "JUDGE_MODE_REFERENCE" : "JUDGE_MODE_POINTWISE",
    task: questionOf(query.task),
    response,
    ...(golds.length > 0 ? { reference: golds.join(" | ") } : {}),
    ...(query.rubric !== undefined ? { rubric: query.rubric } : {}),
    ...(query.rubric_id !== undefined ? { rubric_id: query.rubric_id } : {}),
  };
}

export interface GrpcJudgeOptions {
  /** Per-call deadline in ms (default 60000); the judge component's deadline also applies. */
  timeoutMs?: number;
  /** Sent as `authorization: Bearer KEY` (a proxy in front of the judge). */
  apiKey?: string;
}

const COMPONENT = "judge";

export class GrpcJudge implements Judge {
  readonly address: string;
  readonly #client: JudgeClient;
  readonly #timeoutMs: number;

  constructor(address: string, opts: GrpcJudgeOptions = {}) {
    this.address = address;
    this.#client = new JudgeClient(address, opts.apiKey === undefined ? {} : { apiKey: opts.apiKey });
    this.#timeoutMs = opts.timeoutMs ?? 60_000;
  }

  async score(query: RewardJudgeQuery & JudgeRubricOptions): Promise<JudgeVerdict> {
    const { signal } = query;
    let response: JudgeResponse__Output;
    try {
      response = await this.#client.judge(judgeRequestFor(query), {
        deadlineMs: this.#timeoutMs,
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (err) {
      throw this.#callFailure(err, signal);
    }
    if (response.outcome === "error" && response.error) {
      const code = response.error.code.replace(/^JUDGE_ERROR_/, "");
      throw new RewardInfraError(
        COMPONENT,
        serviceCallCode(`JUDGE_${code}`),
        `${this.address}: ${code}: ${oneLine(response.error.message, 300)}`,
      );
    }
    const verdict = response.outcome === "score" ? response.score : undefined;
    if (!verdict || !(verdict.score >= 0 && verdict.score <= 1)) {
      throw new RewardInfraError(
        COMPONENT,
        "JUDGE_BAD_RESPONSE",
        `${this.address}: ${verdict ? `score ${verdict.score} is not in [0, 1]` : "neither a score nor an error"}`,
      );
    }
    const explanation = verdict.metadata?.explanation;
    return explanation ? { score: verdict.score, explanation } : { score: verdict.score };
  }

  close(): void {
    this.#client.close();
  }

  #callFailure(err: unknown, signal: AbortSignal | undefined): RewardInfraError {
    if (signal?.aborted) return new RewardInfraError(COMPONENT, "CANCELLED", "judge request cancelled");
    const e = err as Partial<ServiceError>;
    switch (e.code) {
      case status.DEADLINE_EXCEEDED:
        return new RewardInfraError(
          COMPONENT,
          "JUDGE_TIMEOUT",
          `${this.address}: no answer in ${this.#timeoutMs} ms`,
        );
      case status.CANCELLED:
        return new RewardInfraError(COMPONENT, "CANCELLED", `${this.address}: ${e.details ?? "cancelled"}`);
      case status.UNAVAILABLE:
        return new RewardInfraError(COMPONENT, "JUDGE_UNAVAILABLE", `${this.address}: ${e.details}`, {
          cause: err,
        });
      default: {
        const name = e.code === undefined ? "" : `${status[e.code] ?? e.code}: `;
        return new RewardInfraError(
          COMPONENT,
          "JUDGE_RPC_ERROR",
          `${this.address}: ${name}${oneLine(e.details ?? (err as Error).message ?? String(err), 200)}`,
          { cause: err },
        );
      }
    }
  }
}

/** The question: `extra_info.question` when the dataset has it, else the last user message. */
export function questionOf(task: Task): string {
  const q = task.extra_info.question;
  if (typeof q === "string") return q;
  const user = task.prompt.findLast((m) => m.role === "user");
  return user?.content ?? "";
}

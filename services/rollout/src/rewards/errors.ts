// Why a reward could not be computed. Two kinds, both making the trajectory's reward null (never a
// silent 0): an infrastructure failure (a verify tool timed out, the judge is down) and a
// configuration/data error (a template path the task lacks, an unknown tool, no judge configured).
// A genuine model outcome (no answer, wrong SQL, a tool's own isError) is a score, not an error.
// The record (`reward_error`) and the codes it carries are the contract's (@rlfactory/contracts).
import type { RewardError, RewardErrorCode, ServiceCallCode } from "@rlfactory/contracts";

/** A reward's own code (REWARD_ERROR_CODES), or a failed gateway call's, passed through. */
export type ScoringErrorCode = RewardErrorCode | ServiceCallCode;

/** Base of both kinds: which component failed, a machine-readable code, and a one-line message. */
export class RewardScoringError extends Error {
  readonly component: string;
  readonly code: ScoringErrorCode;
  readonly kind: "infrastructure" | "config";
  constructor(
    kind: "infrastructure" | "config",
    component: string,
    code: ScoringErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "RewardScoringError";
    this.kind = kind;
    this.component = component;
    this.code = code;
  }
}

/** The infrastructure failed (tool call TIMEOUT/UNAVAILABLE/..., judge error or timeout). */
export class RewardInfraError extends RewardScoringError {
  constructor(component: string, code: ScoringErrorCode, message: string, options?: { cause?: unknown }) {
    super("infrastructure", component, code, message, options);
    this.name = "RewardInfraError";
  }
}

/** The configuration or the task's data cannot be scored (missing template path, unknown tool, no golds). */
export class RewardConfigError extends RewardScoringError {
  constructor(component: string, code: ScoringErrorCode, message: string, options?: { cause?: unknown }) {
    super("config", component, code, message, options);
    this.name = "RewardConfigError";
  }
}

export const isRewardScoringError = (e: unknown): e is RewardScoringError => e instanceof RewardScoringError;
export const isRewardInfraError = (e: unknown): e is RewardInfraError => e instanceof RewardInfraError;
export const isRewardConfigError = (e: unknown): e is RewardConfigError => e instanceof RewardConfigError;

/** The trajectory's `reward_error` for anything a component threw (unexpected errors are INTERNAL). */
export function toRewardError(component: string, err: unknown): RewardError {
  if (isRewardScoringError(err)) return { component, code: err.code, message: err.message };
  const message = err instanceof Error ? err.message : String(err);
  return { component, code: "INTERNAL", message: `unexpected error: ${message}` };
}

/** First line of a text, bounded (tool and judge messages can be long). */
export function oneLine(text: string, max = 300): string {
  const first = text.trim().split("\n", 1)[0] ?? "";
  return first.length > max ? `${first.slice(0, max)}…` : first;
}

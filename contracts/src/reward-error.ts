// Why a trajectory has no reward: the `reward_error` record and the codes records carry. A failed
// scoring makes `reward` null with a `reward_error` — never a silent 0. Two kinds of failure: the
// infrastructure (a verify tool timed out, the judge is down) and the configuration or the task's data
// (a template path the task lacks, an unknown tool, no judge configured). A genuine model outcome (no
// answer, wrong SQL, a tool's own isError) is a score, not an error.
import { z } from "zod";

export const rewardErrorSchema = z
  .object({
    component: z.string().describe("The reward component that failed (`judge`, `tool_verified`, ...)."),
    code: z
      .string()
      .describe(
        "Machine-readable code: one of REWARD_ERROR_CODES, or a gateway call code (INFRA/CONFIG_CALL_CODES).",
      ),
    message: z.string(),
  })
  .meta({
    description:
      "Why scoring failed: reward is null. code is one of the reward error codes or a gateway call code.",
  });
export type RewardError = z.infer<typeof rewardErrorSchema>;

/** Gateway call codes that mean the infrastructure failed, not the model. */
export const INFRA_CALL_CODES: ReadonlySet<string> = new Set([
  "TIMEOUT",
  "UNAVAILABLE",
  "CIRCUIT_OPEN",
  "RATE_LIMITED",
  "INTERNAL",
  "CANCELLED",
  "UPSTREAM_ERROR",
  "OUTPUT_TOO_LARGE",
]);

/** Gateway call codes that mean the reward's configuration is wrong (tool name, argument template). */
export const CONFIG_CALL_CODES: ReadonlySet<string> = new Set([
  "UNKNOWN_TOOL",
  "INVALID_ARGUMENTS",
  "ARGUMENTS_TOO_LARGE",
  "UNAUTHENTICATED",
]);

/**
 * The codes the reward components write into `reward_error.code` themselves (besides the gateway call
 * codes above, passed through from a failed verify call), with what each means.
 */
export const REWARD_ERROR_CODES = {
  INTERNAL: "a component threw something unexpected (the message says what)",
  CANCELLED: "the rollout was cancelled while scoring",
  JUDGE_TIMEOUT: "the judge did not answer in time",
  JUDGE_ERROR: "the judge answered with an error",
  JUDGE_BAD_RESPONSE: "the judge's answer could not be read as a verdict",
  NO_JUDGE: "a judge component is configured but no judge is",
  TOOL_ERROR: "a verify tool reported its own failure (isError)",
  NO_ENVIRONMENT: "a state reward on a task without an environment",
  NO_EPISODE_API: "a replaying reward without the gateway's episode API",
  NO_SNAPSHOT: "the environment snapshot the reward reads was not recorded",
  SNAPSHOT_TRUNCATED: "the snapshot the reward reads was stored truncated (rollout.max_snapshot_bytes)",
} as const;
export type RewardErrorCode = keyof typeof REWARD_ERROR_CODES;

/** Tool-call `error_code`: the tool ran and reported its own failure (MCP isError); the model saw its message. */
export const TOOL_ERROR_CODE = "TOOL_ERROR";
/** Tool-call `error_code` prefix: `MALFORMED_<parser code>`, a call the format's parser could not read. */
export const MALFORMED_CODE_PREFIX = "MALFORMED_";
/** Tool-call `error_code` of a sampled turn with no action at all (no call, no answer). */
export const NO_ACTION_CODE = `${MALFORMED_CODE_PREFIX}UNKNOWN_ACTION`;

// Why a trajectory has no reward: the `reward_error` record and the codes records carry. A failed
// scoring makes `reward` null with a `reward_error` — never a silent 0. Two kinds of failure: the
// infrastructure (a verify tool timed out, the judge is down) and the configuration or the task's data
// (a template path the task lacks, an unknown tool, no judge configured). A genuine model outcome (no
// answer, wrong SQL, a tool's own isError) is a score, not an error.
import { z } from "zod";

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
 * The codes the reward components write into `reward_error.code` themselves, with what each means.
 * The other codes a `reward_error` carries are a failed gateway call's, passed through unchanged
 * (`ServiceCallCode`: INFRA_CALL_CODES, CONFIG_CALL_CODES and whatever else the gateway answers), or the
 * judge service's as `JUDGE_<code>`.
 */
export const REWARD_ERROR_CODES = {
  INTERNAL: "a component threw something unexpected (the message says what)",
  CANCELLED: "the rollout was cancelled while scoring",
  JUDGE_TIMEOUT: "the judge did not answer in time",
  JUDGE_UNAVAILABLE: "the judge could not be reached",
  JUDGE_RPC_ERROR: "the judge call failed with another gRPC status",
  JUDGE_ERROR: "the judge failed",
  JUDGE_BAD_RESPONSE:
    "the judge's answer is not a verdict (neither a score nor an error, or a score outside [0, 1])",
  NO_JUDGE: "a judge component is configured but no judge is",
  TOOL_ERROR: "a verify tool reported its own failure (isError)",
  TOOL_BAD_RESULT: "a verify tool's result has no score at the configured score_path",
  TEMPLATE_PATH_MISSING: "an argument template names a path the task lacks",
  TEMPLATE_NOT_TEXT: "an argument template's value inside a longer string is not text",
  NO_GOLD_ANSWERS:
    "a rule reward (exact_match, f1, string_check, ...) needing a reference, on a task without gold answers",
  RULE_INVALID:
    "a rule reward's grader rejected the input (a text over the similarity limit, a formula giving a non-finite number)",
  NO_GROUND_TRUTH: "a per-turn reward on a task without the ground truth it compares against",
  BAD_GROUND_TRUTH: "the task's ground truth is not in the shape the reward reads",
  NO_UNSOLVED_SET: "ftrl_solve on a task without extra_info.unsolved_set",
  BAD_UNSOLVED_SET: "the task's unsolved_set is not in the shape ftrl_solve reads",
  NO_EXPECTED_STATE: "state_match on a task without the expected state",
  NO_ENVIRONMENT: "a state reward on a task without an environment",
  NO_EPISODE_API: "a replaying reward without the gateway's episode API",
  NO_SNAPSHOT: "the environment snapshot the reward reads was not recorded",
  SNAPSHOT_TRUNCATED: "the snapshot the reward reads was stored truncated (rollout.max_snapshot_bytes)",
  SNAPSHOT_BASE_MISMATCH:
    "a snapshot stored as a diff names an initial state other than the one the task's environment starts in",
  NO_ENV_REWARD: "env_reward: the final environment state has no number at the component's path",
  NO_CALL_TURN: "a tool call without its turn, where the reward needs the user turn it belongs to",
  TURN_UNKNOWN: "a tool call that does not name the sampled turn that made it",
  TURNS_MISALIGNED: "the decoded sampled texts do not match the trajectory's sampled turns",
  MALFORMED_TURNS_UNKNOWN: "process.malformed without one malformed flag per sampled turn",
} as const;
export type RewardErrorCode = keyof typeof REWARD_ERROR_CODES;

/**
 * A code another service answered with, passed through into a `reward_error` unchanged: a failed
 * gateway call's (`TIMEOUT`, `UNKNOWN_TOOL`, ...), the judge service's (as `JUDGE_<code>`).
 */
export type ServiceCallCode = string & { readonly __serviceCallCode: true };
/** Marks a code as another service's (a reward's own codes are REWARD_ERROR_CODES, checked by the compiler). */
export const serviceCallCode = (code: string): ServiceCallCode => code as ServiceCallCode;

/** Tool-call `error_code`: the tool ran and reported its own failure (MCP isError); the model saw its message. */
export const TOOL_ERROR_CODE = "TOOL_ERROR";
/** Tool-call `error_code` prefix: `MALFORMED_<parser code>`, a call the format's parser could not read. */
export const MALFORMED_CODE_PREFIX = "MALFORMED_";
/** Tool-call `error_code` of a sampled turn with no action at all (no call, no answer). */
export const NO_ACTION_CODE = `${MALFORMED_CODE_PREFIX}UNKNOWN_ACTION`;

export const rewardErrorSchema = z
  .object({
    component: z.string().describe("The reward component that failed (`judge`, `tool_verified`, ...)."),
    code: z
      .string()
      .describe(
        `Machine-readable: a reward's own code (${Object.keys(REWARD_ERROR_CODES).join(", ")}), or another service's passed through: a failed gateway call's (${[...INFRA_CALL_CODES, ...CONFIG_CALL_CODES].join(", ")}, ...), the judge service's as JUDGE_<code>.`,
      ),
    message: z.string().describe("One line saying what failed."),
  })
  .meta({
    description:
      "Why scoring failed (reward is then null, never a silent 0): for infrastructure reasons (judge down, verify tool timed out) or configuration/data ones (a template path the task lacks, an unknown tool).",
  });
export type RewardError = z.infer<typeof rewardErrorSchema>;

// The errors of the environment host. Episode-level failures throw an EnvironmentError; a tool call's
// own failure (unknown tool, bad arguments, an exception in the method) is a result, not a throw
// (see CallResult in python-environment-host.ts), so it can go back to the model as a tool error.

/** Why an operation on an environment failed. */
export type EnvironmentErrorCode =
  /** The worker holding the episode died or was ended (call timeout): the episode's state is gone. */
  | "EPISODE_LOST"
  /** No such handle (never created, or closed). */
  | "UNKNOWN_EPISODE"
  /** The episode config was refused, or building the instances raised. */
  | "BAD_CONFIG"
  /** The module or class could not be loaded, or two classes define the same tool. */
  | "BAD_MODULE"
  /** The sandbox or the worker could not be started, or the host was stopped. */
  | "WORKER_FAILED"
  /** A call written as source text could not be read (`parseCall`). */
  | "BAD_CALL"
  /** The answer (a snapshot's state) is longer than a protocol line may be (`maxLineBytes`). */
  | "ANSWER_TOO_LARGE"
  /** The environment cannot fork this episode (an OpenEnv episode whose replay diverged, or fork refused). */
  | "FORK_REFUSED";

/** A tool call's failure, returned to the caller as a tool error. */
export type ToolErrorCode = "UNKNOWN_TOOL" | "BAD_ARGUMENTS" | "TOOL_ERROR";

export class EnvironmentError extends Error {
  readonly code: EnvironmentErrorCode | ToolErrorCode;

  constructor(code: EnvironmentErrorCode | ToolErrorCode, message: string) {
    super(message);
    this.name = "EnvironmentError";
    this.code = code;
  }
}

// The `code` tool server for `rlf tool code`: sandboxed Python/JavaScript execution.

export { codeServerEntry } from "./code-entry.ts";
export { CodeSandbox } from "./code-sandbox.ts";
export { type CodeServerOptions, createCodeServer } from "./code-server.ts";
export type { RunResult, RunStatus } from "./run-result.ts";
export { DEFAULT_SETTINGS, type SandboxSettings } from "./sandbox-limits.ts";
export { SandboxUnavailable } from "./sandbox-probe.ts";

// How `rlf tool code` is listed and started: its flags, and a factory that loads the server only when
// one is created.
import type { ToolServerEntry } from "../tool-server-entry.ts";
import type { SandboxSettings } from "./sandbox-limits.ts";

const NUMERIC_OPTIONS = {
  concurrency: "concurrency",
  "max-run-timeout": "maxRunTimeoutSec",
  "max-memory": "maxMemoryMb",
  "uid-base": "uidBase",
} as const satisfies Record<string, keyof SandboxSettings>;

export const codeServerEntry: ToolServerEntry = {
  summary: "run Python/JavaScript in a bubblewrap sandbox (run_code, run_tests, SandboxFusion /run_code)",
  // `rlf stack` serves the tools as unavailable, with the reason, where sandboxing does not work.
  stackArgs: ["--sandbox-optional"],
  options: {
    concurrency: { type: "string" },
    "max-run-timeout": { type: "string" },
    "max-memory": { type: "string" },
    "uid-base": { type: "string" },
    node: { type: "string" },
    "memory-accounting": { type: "string" },
    "sandbox-optional": { type: "boolean" },
  },
  usage:
    "[--concurrency N] [--max-run-timeout SEC] [--max-memory MB] [--memory-accounting auto|cgroup|rlimit] [--uid-base UID] [--node PATH] [--sandbox-optional]",
  create: (values) => {
    const settings: Partial<SandboxSettings> = {};
    for (const [flag, key] of Object.entries(NUMERIC_OPTIONS)) {
      const raw = values[flag];
      if (raw === undefined) continue;
      const n = Number(raw);
      if (typeof raw !== "string" || !Number.isFinite(n) || n <= 0)
        throw new Error(`--${flag} needs a positive number`);
      settings[key] = n;
    }
    if (typeof values.node === "string") settings.nodePath = values.node;
    const accounting = values["memory-accounting"];
    if (accounting !== undefined) {
      if (accounting !== "auto" && accounting !== "cgroup" && accounting !== "rlimit")
        throw new Error("--memory-accounting is one of auto, cgroup, rlimit");
      settings.memoryAccounting = accounting;
    }
    return import("./code-server.ts").then((m) =>
      m.createCodeServer({ ...settings, sandboxOptional: values["sandbox-optional"] === true }),
    );
  },
};

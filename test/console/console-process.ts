// `rlf console` as a child process, as a user starts it: on the port it prints, until stopped.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { RLF, ROOT } from "@rlfactory/test-support/gateway-harness";

export interface ConsoleProcess {
  /** The URL of its "rlf console: URL" line (the host as bound: 0.0.0.0 beyond loopback). */
  url: string;
  /** SIGTERM, and its exit. */
  stop(): Promise<void>;
}

/** `rlf console ARGS` (with `env` added to this process's), once it prints the URL it serves on. */
export async function startConsoleProcess(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<ConsoleProcess> {
  const child = spawn(process.execPath, [RLF, "console", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const stop = async () => {
    child.kill("SIGTERM");
    if (child.exitCode === null && child.signalCode === null) await once(child, "exit");
  };
  for await (const line of createInterface({ input: child.stderr! })) {
    const url = /^rlf console: (http:\/\/\S+)/.exec(line)?.[1];
    if (url) return { url, stop };
  }
  await stop();
  throw new Error("rlf console exited without serving");
}

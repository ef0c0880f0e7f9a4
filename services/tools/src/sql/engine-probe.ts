// Whether the SQL engine can load here, asked once at start in a query process of its own (the same
// code path every query process takes): undefined when it loads, else why not (engine-load-error.ts).
// `rlf tool sql` serves its tools as unavailable with that reason, so the gateway's /readyz reports the
// server degraded and names it instead of saying "ready" while every call fails.
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ProcessReady } from "./query-messages.ts";

const PROCESS_PATH = fileURLToPath(new URL("./query-process.ts", import.meta.url));

export function probeSqlEngine(timeoutMs = 120_000): Promise<string | undefined> {
  return new Promise((resolve) => {
    // No execArgv of ours (a test runner's or an inspector's flags), as for the pool's processes.
    const child = fork(PROCESS_PATH, [], { execArgv: [], stdio: ["ignore", "ignore", "inherit", "ipc"] });
    let settled = false;
    const done = (why: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill("SIGKILL");
      resolve(why);
    };
    // A machine too slow to load it in time is not a broken engine: the pool reports real failures later.
    const timer = setTimeout(() => done(undefined), timeoutMs);
    child.on("message", (raw: unknown) => {
      const message = ProcessReady.safeParse(raw);
      if (message.success) done(message.data.ready ? undefined : message.data.error);
    });
    child.once("error", (err) => done(`the SQL engine could not start: ${err.message}`));
    child.once("exit", (code) =>
      done(code === 0 ? undefined : `the SQL engine could not start (exit ${code})`),
    );
  });
}

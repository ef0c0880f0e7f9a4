// Entry of a query process (a child of the sql server, over IPC): runs database jobs one at a
// time. The server kills a process whose job runs past its time limit: better-sqlite3 is
// synchronous and cannot be interrupted, and a worker thread stuck inside SQLite cannot even be
// terminated, so a separate process is the unit that can be stopped for sure.
// Everything a job does runs here, `verify`'s comparison included, so the server's main thread only
// passes messages.
import { engineLoadError } from "./engine-load-error.ts";
import { errorLine } from "./error-line.ts";
import { type PhaseNotice, QueryJob, type QueryReply } from "./query-messages.ts";

function send(message: unknown): void {
  // With a callback, a send to a server that has gone away fails here instead of throwing.
  process.send?.(message, undefined, {}, (error) => {
    if (error) process.exit(0);
  });
}

if (process.send === undefined) throw new Error("query-process.ts must run as a child process with IPC");
// The server went away: nothing is left to answer.
process.on("disconnect", () => process.exit(0));

try {
  // Loaded here rather than imported statically, so that a native module that cannot load (a
  // build for another Node ABI) is reported to the server as a message, not only on stderr.
  const { OperationFailure, perform } = await import("./database-operations.ts");
  const { RefusedStatement } = await import("./read-only-statement.ts");
  await import("better-sqlite3").then((m) => new m.default(":memory:").close());
  process.on("message", (raw: unknown) => {
    const { id, request } = QueryJob.parse(raw);
    let reply: QueryReply;
    try {
      const enter = (phase: PhaseNotice["phase"], goldRows?: number) =>
        send({ id, phase, ...(goldRows !== undefined ? { gold_rows: goldRows } : {}) } satisfies PhaseNotice);
      reply = { id, ok: true, result: perform(request, enter) };
    } catch (error) {
      const kind =
        error instanceof RefusedStatement
          ? "refused"
          : error instanceof OperationFailure
            ? error.kind
            : "sqlite";
      reply = { id, ok: false, kind, message: errorLine(error) };
    }
    send(reply);
  });
  send({ ready: true });
} catch (error) {
  // The whole cause (its first line alone names only a path), and what to run for an ABI mismatch.
  send({ ready: false, error: engineLoadError(error) });
  process.disconnect();
}

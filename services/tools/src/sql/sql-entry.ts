// How `rlf tool sql` is listed and started: its flags (checked at once, the database directory too), and
// a factory.
import { z } from "zod";
import type { ToolServerEntry } from "../tool-server-entry.ts";
import { probeSqlEngine } from "./engine-probe.ts";
import { createSqlServer, LIMITS, openDatabaseDirectory } from "./sql-server.ts";

function wholeNumber(flag: string, max: number) {
  return z
    .string()
    .regex(/^\d+$/, `${flag} must be a whole number`)
    .transform(Number)
    .pipe(z.number().int().min(1, `${flag} must be at least 1`).max(max, `${flag} must be at most ${max}`))
    .optional();
}

const SqlFlags = z.object({
  "db-dir": z.string().min(1).optional(),
  "timeout-ms": z
    .string()
    .regex(/^\d+$/, "--timeout-ms must be a whole number of milliseconds")
    .transform(Number)
    .pipe(z.number().int().min(1).max(600_000))
    .optional(),
  processes: wholeNumber("--processes", 64),
  "per-caller": wholeNumber("--per-caller", 64),
});

export const sqlServerEntry: ToolServerEntry = {
  summary: "read-only SQL over a directory of SQLite databases (Spider layout), with execution-match verify",
  options: {
    "db-dir": { type: "string" },
    "timeout-ms": { type: "string" },
    processes: { type: "string" },
    "per-caller": { type: "string" },
  },
  usage: "[--db-dir DIR] [--timeout-ms MS] [--processes N] [--per-caller N]",
  create: (values) => {
    const flags = SqlFlags.safeParse(values);
    if (!flags.success) {
      throw new Error(flags.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
    }
    const dbDir = flags.data["db-dir"];
    const { "timeout-ms": timeoutMs, processes, "per-caller": perCaller } = flags.data;
    if (perCaller !== undefined && perCaller > (processes ?? LIMITS.processes)) {
      throw new Error(
        `--per-caller (${perCaller}) must not exceed --processes (${processes ?? LIMITS.processes})`,
      );
    }
    openDatabaseDirectory(dbDir); // a usage error at once, before the engine probe
    // Asked before the tools are listed: an engine that cannot load makes them unavailable, with why.
    return probeSqlEngine().then((engineUnavailable) =>
      createSqlServer({
        ...(engineUnavailable !== undefined ? { engineUnavailable } : {}),
        ...(dbDir !== undefined ? { dbDir } : {}),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        ...(processes !== undefined ? { processes } : {}),
        ...(perCaller !== undefined ? { perCaller } : {}),
      }),
    );
  },
};

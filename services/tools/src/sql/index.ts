// The `sql` tool server as `rlf tool sql [--db-dir DIR] [--timeout-ms MS] [--stdio | --http PORT]`.
import { z } from "zod";
import type { ToolServerEntry } from "../tool-server-entry.ts";
import { createSqlServer } from "./sql-server.ts";

export type { SqlServerOptions } from "./sql-server.ts";
export { createSqlServer, DEFAULT_DB_DIR, LIMITS } from "./sql-server.ts";

const SqlFlags = z.object({
  "db-dir": z.string().min(1).optional(),
  "timeout-ms": z
    .string()
    .regex(/^\d+$/, "--timeout-ms must be a whole number of milliseconds")
    .transform(Number)
    .pipe(z.number().int().min(1).max(600_000))
    .optional(),
});

export const sqlServerEntry: ToolServerEntry = {
  summary: "read-only SQL over a directory of SQLite databases (Spider layout), with execution-match verify",
  options: { "db-dir": { type: "string" }, "timeout-ms": { type: "string" } },
  usage: "[--db-dir DIR] [--timeout-ms MS]",
  create: (values) => {
    const flags = SqlFlags.safeParse(values);
    if (!flags.success) {
      throw new Error(flags.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
    }
    const dbDir = flags.data["db-dir"];
    const timeoutMs = flags.data["timeout-ms"];
    return createSqlServer({
      ...(dbDir !== undefined ? { dbDir } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    });
  },
};

// The `sql` tool server as
// `rlf tool sql [--db-dir DIR] [--timeout-ms MS] [--processes N] [--per-caller N] [--stdio | --http PORT]`.

export { sqlServerEntry } from "./sql-entry.ts";
export type { SqlServerOptions } from "./sql-server.ts";
export { createSqlServer, DEFAULT_DB_DIR, LIMITS } from "./sql-server.ts";

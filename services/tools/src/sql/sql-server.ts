// The `sql` tool server: read-only access to a directory of SQLite databases (Spider's layout) for
// NL2SQL agents: list_tables, describe_table, query, and verify (execution match of a predicted
// query against a gold one, the usual NL2SQL reward). All database work — `verify`'s comparison
// included — runs in a small pool of child processes, scheduled fairly across callers and killed at
// a statement's time limit or the caller's deadline, so no query can block the server or another
// caller.
import { fileURLToPath } from "node:url";
import {
  createToolServer,
  defineTool,
  type Logger,
  type ToolContext,
  ToolError,
  type ToolServer,
  logger as toolkitLogger,
} from "@rlfactory/toolkit";
import { z } from "zod";
import { callerOf } from "../fair-scheduling/caller-identity.ts";
import { DatabaseDirectory } from "./database-directory.ts";
import { hasTopLevelOrderBy } from "./order-by.ts";
import {
  Cell,
  DescribeResult,
  type FailureKind,
  type QueryRequest,
  QueryResult,
  TablesResult,
  VerifyOutcome,
} from "./query-messages.ts";
import { QueryProcessPool } from "./query-process-pool.ts";
import type { CompareMode } from "./result-comparison.ts";
import { renderTable } from "./result-table.ts";

/** The small attributed sample shipped with the repository (two Spider databases). */
export const DEFAULT_DB_DIR = fileURLToPath(new URL("../../data/sql/", import.meta.url));

export const LIMITS = {
  /**
   * Time limit of one statement (or one table listing/description, or `verify`'s comparison),
   * unless `timeoutMs` is given.
   */
  timeoutMs: 2_000,
  /** Query processes, unless `processes` is given; one caller holds at most half of them. */
  processes: 4,
  /** Rows `query` returns when max_rows is not given, and the most it may ask for. */
  defaultMaxRows: 100,
  maxRowsCap: 1_000,
  /** Characters of one text cell shown by `query`/`describe_table` before it is cut. */
  maxCellChars: 1_000,
  /** Approximate JSON characters of one `query` result; rows past it are left out (truncated). */
  maxResultChars: 100_000,
  /** Rows each side of `verify` may have; a larger result is an error. */
  verifyMaxRows: 100_000,
  /** Characters of one SQL statement. */
  maxSqlChars: 20_000,
  sampleRows: 3,
} as const;

export interface SqlServerOptions {
  /** Directory of databases; default DEFAULT_DB_DIR. */
  dbDir?: string;
  /** Time limit of one statement, in ms; default 2000. */
  timeoutMs?: number;
  /** Query processes running statements at once; default 4. */
  processes?: number;
  /** Query processes one caller may hold at once (see caller-identity.ts); default half of `processes`. */
  perCaller?: number;
  /** Where logs go (tool calls, "query process stopped"); default the toolkit's logger. */
  logger?: Logger;
  /**
   * Why the SQL engine cannot load here (engine-probe.ts, which `rlf tool sql` runs first): the tools are
   * then listed as unavailable with this reason, and the gateway's /readyz reports it.
   */
  engineUnavailable?: string;
}

type JobResult =
  | { ok: true; result: unknown }
  | { ok: false; kind: FailureKind | "timeout" | "crashed"; message: string };

/** The database directory, or an error naming it (thrown at once, before anything starts). */
export function openDatabaseDirectory(dbDir: string = DEFAULT_DB_DIR): DatabaseDirectory {
  try {
    return new DatabaseDirectory(dbDir);
  } catch (error) {
    throw new Error(`cannot read the database directory ${dbDir}: ${(error as Error).message}`);
  }
}

export function createSqlServer(opts: SqlServerOptions = {}): ToolServer {
  const timeoutMs = opts.timeoutMs ?? LIMITS.timeoutMs;
  const directory = openDatabaseDirectory(opts.dbDir);
  const pool = new QueryProcessPool({
    size: opts.processes ?? LIMITS.processes,
    ...(opts.perCaller !== undefined ? { perCaller: opts.perCaller } : {}),
    ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
  });
  pool.warmUp();
  const timedOut = `query timed out after ${timeoutMs} ms`;

  const run = async (request: QueryRequest, ctx: ToolContext): Promise<JobResult> => {
    const outcome = await pool.run(request, { timeoutMs, caller: callerOf(ctx), signal: ctx.signal });
    switch (outcome.status) {
      case "done":
        return outcome.reply.ok
          ? { ok: true, result: outcome.reply.result }
          : { ok: false, kind: outcome.reply.kind, message: outcome.reply.message };
      case "timeout":
        return { ok: false, kind: "timeout", message: timedOut };
      case "cancelled":
        throw new ToolError("the call was cancelled");
      case "crashed":
        return { ok: false, kind: "crashed", message: outcome.message };
    }
  };
  const mustRun = async (request: QueryRequest, ctx: ToolContext): Promise<unknown> => {
    const job = await run(request, ctx);
    if (!job.ok) throw new ToolError(job.message);
    return job.result;
  };

  const ids = directory.ids();
  const Db = z
    .string()
    .min(1)
    .max(200)
    .describe(
      `database id${ids.length > 0 ? `, one of: ${ids.slice(0, 30).join(", ")}${ids.length > 30 ? ", ..." : ""}` : ""}`,
    );
  const Sql = z.string().min(1).max(LIMITS.maxSqlChars);
  const hints = { readOnlyHint: true, idempotentHint: true };

  const listTables = defineTool({
    name: "list_tables",
    title: "List tables",
    description: "Lists the tables (and views) of a SQLite database.",
    input: z.object({ db: Db }),
    output: TablesResult,
    annotations: hints,
    handler: async ({ db }, ctx) =>
      TablesResult.parse(await mustRun({ op: "tables", file: directory.fileOf(db) }, ctx)),
    render: ({ tables }) => (tables.length > 0 ? tables.join("\n") : "(no tables)"),
  });

  const describeTable = defineTool({
    name: "describe_table",
    title: "Describe table",
    description:
      "Shows a table's columns (type, NOT NULL, primary key, default), its foreign keys and its first rows.",
    input: z.object({ db: Db, table: z.string().min(1).max(500) }),
    output: DescribeResult,
    annotations: hints,
    handler: async ({ db, table }, ctx) =>
      DescribeResult.parse(
        await mustRun(
          {
            op: "describe",
            file: directory.fileOf(db),
            table,
            sampleRows: LIMITS.sampleRows,
            maxCellChars: LIMITS.maxCellChars,
          },
          ctx,
        ),
      ),
    render: (d) => {
      const columns = d.columns.map(
        (c) =>
          `  ${c.name} ${c.type || "(no type)"}${c.pk ? " PRIMARY KEY" : ""}${c.notnull ? " NOT NULL" : ""}` +
          (c.default !== null ? ` DEFAULT ${c.default}` : ""),
      );
      const keys = d.foreign_keys.map(
        (k) => `  ${k.column} -> ${k.ref_table}(${k.ref_column ?? "primary key"})`,
      );
      const parts = [`table ${d.table}`, "columns:", ...columns];
      if (keys.length > 0) parts.push("foreign keys:", ...keys);
      if (d.sample_rows !== undefined) {
        parts.push(
          "first rows:",
          renderTable(
            d.columns.map((c) => c.name),
            d.sample_rows,
            false,
          ),
        );
      }
      return parts.join("\n");
    },
  });

  const query = defineTool({
    name: "query",
    title: "Run a SQL query",
    description:
      "Runs one read-only SQLite query (SELECT / WITH / VALUES) and returns its rows " +
      `(the first max_rows, default ${LIMITS.defaultMaxRows}; truncated tells whether there were more). ` +
      `Statements that change anything are refused; a query running over ${timeoutMs} ms is stopped.`,
    input: z.object({
      db: Db,
      sql: Sql.describe("one SQLite SELECT statement"),
      max_rows: z.number().int().min(1).max(LIMITS.maxRowsCap).optional(),
    }),
    output: z.object({
      columns: z.array(z.string()),
      rows: z.array(z.array(Cell)),
      row_count: z.number().int().describe("rows returned here"),
      truncated: z.boolean().describe("whether the result had more rows than returned"),
    }),
    annotations: hints,
    handler: async ({ db, sql, max_rows }, ctx) => {
      const result = QueryResult.parse(
        await mustRun(
          {
            op: "query",
            file: directory.fileOf(db),
            sql,
            maxRows: max_rows ?? LIMITS.defaultMaxRows,
            maxCellChars: LIMITS.maxCellChars,
            maxResultChars: LIMITS.maxResultChars,
          },
          ctx,
        ),
      );
      return { ...result, row_count: result.rows.length };
    },
    render: ({ columns, rows, truncated }) => renderTable(columns, rows, truncated),
  });

  const verify = defineTool({
    name: "verify",
    title: "Check a query against a gold query",
    description:
      "Execution match: runs predicted_sql and gold_sql and says whether their results are equal. Rows are " +
      "compared as multisets (`bag`), in order (`ordered`) when gold_sql ends with an ORDER BY, or as sets " +
      "(`set`) if asked; columns may come in any order; 1 equals 1.0. A failing predicted query is no match.",
    input: z.object({
      db: Db,
      predicted_sql: Sql,
      gold_sql: Sql,
      compare: z
        .enum(["set", "bag", "ordered"])
        .optional()
        .describe("default: `ordered` if gold_sql has a top-level ORDER BY, else `bag`"),
    }),
    output: z.object({
      match: z.boolean(),
      compare: z.enum(["set", "bag", "ordered"]),
      predicted_rows: z.number().int().nullable().describe("null when the predicted query failed"),
      gold_rows: z.number().int(),
      error: z.string().nullable().describe("why the predicted query failed, else null"),
    }),
    annotations: hints,
    handler: async ({ db, predicted_sql, gold_sql, compare }, ctx) => {
      const mode: CompareMode = compare ?? (hasTopLevelOrderBy(gold_sql) ? "ordered" : "bag");
      const request: QueryRequest = {
        op: "verify",
        file: directory.fileOf(db),
        goldSql: gold_sql,
        predictedSql: predicted_sql,
        maxRows: LIMITS.verifyMaxRows,
        mode,
      };
      const outcome = await pool.run(request, { timeoutMs, caller: callerOf(ctx), signal: ctx.signal });
      switch (outcome.status) {
        case "done": {
          if (!outcome.reply.ok) throw new ToolError(outcome.reply.message);
          return { compare: mode, ...VerifyOutcome.parse(outcome.reply.result) };
        }
        case "timeout":
        case "crashed": {
          // Each step has the time limit: the gold query's (or its process dying) is the call's
          // failure; the predicted query's, or its comparison running over, is no match.
          const why =
            outcome.status === "crashed"
              ? outcome.message
              : outcome.phase === "compare"
                ? `the comparison timed out after ${timeoutMs} ms`
                : timedOut;
          if (outcome.phase === undefined || outcome.phase === "gold" || outcome.goldRows === undefined) {
            throw new ToolError(outcome.status === "crashed" ? why : `gold_sql failed: ${why}`);
          }
          return {
            match: false,
            compare: mode,
            predicted_rows: null,
            gold_rows: outcome.goldRows,
            error: why,
          };
        }
        case "cancelled":
          throw new ToolError("the call was cancelled");
      }
    },
    render: (v) =>
      v.error !== null
        ? `no match: the predicted query failed: ${v.error}`
        : `${v.match ? "match" : "no match"} (${v.compare} comparison; predicted ${v.predicted_rows} rows, gold ${v.gold_rows} rows)`,
  });

  const unavailable = opts.engineUnavailable;
  if (unavailable !== undefined)
    (opts.logger ?? toolkitLogger).warn({ server: "sql", reason: unavailable }, "SQL engine unavailable");
  const mark = unavailable === undefined ? {} : { unavailable };
  return createToolServer({
    name: "sql",
    version: "0.1.0",
    tools: [listTables, describeTable, query, verify].map((tool) => ({ ...tool, ...mark })),
    ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
  });
}

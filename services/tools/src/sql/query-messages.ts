// Messages between the sql server and its query processes: one request per job, one reply per request.
import { z } from "zod";

/** A result cell as the model sees it: numbers, text (blobs described as text) and NULL. */
export const Cell = z.union([z.number(), z.string(), z.null()]);
export type Cell = z.infer<typeof Cell>;

export const QueryRequest = z.discriminatedUnion("op", [
  z.object({ op: z.literal("tables"), file: z.string() }),
  z.object({
    op: z.literal("describe"),
    file: z.string(),
    table: z.string(),
    sampleRows: z.number().int().min(0),
    maxCellChars: z.number().int().positive(),
  }),
  z.object({
    op: z.literal("query"),
    file: z.string(),
    sql: z.string(),
    maxRows: z.number().int().positive(),
    maxCellChars: z.number().int().positive(),
    maxResultChars: z.number().int().positive(),
  }),
  /**
   * `verify` in one job: the gold query's rows, then the predicted query's, then their comparison,
   * so that the comparison (seconds for large results) never runs on the server's main thread.
   */
  z.object({
    op: z.literal("verify"),
    file: z.string(),
    goldSql: z.string(),
    predictedSql: z.string(),
    maxRows: z.number().int().positive(),
    mode: z.enum(["set", "bag", "ordered"]),
  }),
]);
export type QueryRequest = z.infer<typeof QueryRequest>;

export const TablesResult = z.object({ tables: z.array(z.string()) });

export const DescribeResult = z.object({
  table: z.string(),
  columns: z.array(
    z.object({
      name: z.string(),
      type: z.string(),
      notnull: z.boolean(),
      pk: z.boolean(),
      default: z.string().nullable(),
    }),
  ),
  foreign_keys: z.array(
    z.object({ column: z.string(), ref_table: z.string(), ref_column: z.string().nullable() }),
  ),
  sample_rows: z.array(z.array(Cell)).optional(),
});
export type DescribeResult = z.infer<typeof DescribeResult>;

export const QueryResult = z.object({
  columns: z.array(z.string()),
  rows: z.array(z.array(Cell)),
  truncated: z.boolean(),
});
export type QueryResult = z.infer<typeof QueryResult>;

/** A query's full result as comparison keys (see cell-key.ts), for `verify`. */
export const RowsResult = z.object({ columns: z.array(z.string()), rows: z.array(z.array(z.string())) });
export type RowsResult = z.infer<typeof RowsResult>;

/** What a `verify` job found; a failing gold query is the job's failure instead. */
export const VerifyOutcome = z.object({
  gold_rows: z.number().int(),
  /** null when the predicted query failed. */
  predicted_rows: z.number().int().nullable(),
  match: z.boolean(),
  /** Why the predicted query failed (one line), else null. */
  error: z.string().nullable(),
});
export type VerifyOutcome = z.infer<typeof VerifyOutcome>;

/** A step of a job that has several (`verify`): "gold", "predicted", "compare". */
export const JobPhase = z.enum(["gold", "predicted", "compare"]);
export type JobPhase = z.infer<typeof JobPhase>;

/**
 * Sent by a query process as a multi-step job enters its next step: the step's time limit starts
 * again, and `gold_rows` (once known) lets the server answer if the next step is stopped.
 */
export const PhaseNotice = z.object({
  id: z.number().int(),
  phase: JobPhase,
  gold_rows: z.number().int().optional(),
});
export type PhaseNotice = z.infer<typeof PhaseNotice>;

/**
 * Why a request failed inside the query process: `refused` (not a single read-only SELECT), `sqlite`
 * (SQLite rejected or failed the statement), `not_found` (no such table), `too_large` (over a cap).
 */
export const FailureKind = z.enum(["refused", "sqlite", "not_found", "too_large"]);
export type FailureKind = z.infer<typeof FailureKind>;

export const QueryReply = z.discriminatedUnion("ok", [
  z.object({ id: z.number().int(), ok: z.literal(true), result: z.unknown() }),
  z.object({ id: z.number().int(), ok: z.literal(false), kind: FailureKind, message: z.string() }),
]);
export type QueryReply = z.infer<typeof QueryReply>;

export const QueryJob = z.object({ id: z.number().int(), request: QueryRequest });
export type QueryJob = z.infer<typeof QueryJob>;

/** Sent once by a query process: it has loaded SQLite and takes jobs, or could not load it. */
export const ProcessReady = z.union([
  z.object({ ready: z.literal(true) }),
  z.object({ ready: z.literal(false), error: z.string() }),
]);

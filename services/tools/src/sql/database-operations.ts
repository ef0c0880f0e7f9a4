// What the query processes do with a database: list its tables, describe one, run a model's query
// (capped and made presentable), fetch a query's full result as comparison keys, and `verify`: both
// queries' results and their comparison, step by step (each step announced, for its time limit).
import { cellKey } from "./cell-key.ts";
import { errorLine } from "./error-line.ts";
import type {
  Cell,
  DescribeResult,
  FailureKind,
  JobPhase,
  QueryRequest,
  QueryResult,
  RowsResult,
  VerifyOutcome,
} from "./query-messages.ts";
import { prepareReadOnly } from "./read-only-statement.ts";
import { resultsMatch } from "./result-comparison.ts";
import { connectionFor } from "./sqlite-connection.ts";

/** A failure reported to the caller with its kind (other than SQLite's own errors). */
export class OperationFailure extends Error {
  override readonly name = "OperationFailure";
  readonly kind: FailureKind;
  constructor(kind: FailureKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function presentCell(value: unknown, maxChars: number): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  if (value instanceof Uint8Array) return `<blob, ${value.length} bytes>`;
  const text = String(value);
  return text.length > maxChars
    ? `${text.slice(0, maxChars)}… (${text.length - maxChars} more characters)`
    : text;
}

function tableNames(file: string): string[] {
  const rows = connectionFor(file)
    .prepare(
      "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
    )
    .pluck()
    .all();
  return rows.map(String);
}

function describe(request: Extract<QueryRequest, { op: "describe" }>): DescribeResult {
  const db = connectionFor(request.file);
  const wanted = request.table.toLowerCase();
  const table = tableNames(request.file).find((name) => name.toLowerCase() === wanted);
  if (table === undefined) throw new OperationFailure("not_found", `no such table: ${request.table}`);
  const columns = db
    .prepare('SELECT name, type, "notnull" AS not_null, dflt_value, pk FROM pragma_table_info(?)')
    .all(table) as { name: string; type: string; not_null: number; dflt_value: string | null; pk: number }[];
  const keys = db
    .prepare(
      'SELECT "from" AS column, "table" AS ref_table, "to" AS ref_column FROM pragma_foreign_key_list(?)',
    )
    .all(table) as { column: string; ref_table: string; ref_column: string | null }[];
  const sample = db
    .prepare(`SELECT * FROM ${quoteIdentifier(table)} LIMIT ?`)
    .raw(true)
    .all(request.sampleRows);
  return {
    table,
    columns: columns.map((c) => ({
      name: c.name,
      type: c.type,
      notnull: c.not_null !== 0,
      pk: c.pk !== 0,
      default: c.dflt_value,
    })),
    foreign_keys: keys.map((k) => ({ column: k.column, ref_table: k.ref_table, ref_column: k.ref_column })),
    sample_rows: (sample as unknown[][]).map((row) => row.map((v) => presentCell(v, request.maxCellChars))),
  };
}

function query(request: Extract<QueryRequest, { op: "query" }>): QueryResult {
  const statement = prepareReadOnly(connectionFor(request.file), request.sql).raw(true);
  const columns = statement.columns().map((c) => c.name);
  const rows: Cell[][] = [];
  let chars = 0;
  let truncated = false;
  for (const raw of statement.iterate() as IterableIterator<unknown[]>) {
    if (rows.length === request.maxRows) {
      truncated = true;
      break;
    }
    const row = raw.map((v) => presentCell(v, request.maxCellChars));
    chars += JSON.stringify(row).length;
    if (chars > request.maxResultChars && rows.length > 0) {
      truncated = true;
      break;
    }
    rows.push(row);
  }
  return { columns, rows, truncated };
}

function rows(request: { file: string; sql: string; maxRows: number }): RowsResult {
  const statement = prepareReadOnly(connectionFor(request.file), request.sql).raw(true);
  const columns = statement.columns().map((c) => c.name);
  const keys: string[][] = [];
  for (const raw of statement.iterate() as IterableIterator<unknown[]>) {
    if (keys.length === request.maxRows) {
      throw new OperationFailure("too_large", `the result has more than ${request.maxRows} rows`);
    }
    keys.push(raw.map(cellKey));
  }
  return { columns, rows: keys };
}

/** Thrown by `verify` when the gold query fails: a failure of the call, not a "no match". */
export class GoldQueryFailure extends OperationFailure {
  constructor(cause: unknown) {
    super(cause instanceof OperationFailure ? cause.kind : "sqlite", `gold_sql failed: ${errorLine(cause)}`);
  }
}

function verify(
  request: Extract<QueryRequest, { op: "verify" }>,
  enter: (phase: JobPhase, goldRows?: number) => void,
): VerifyOutcome {
  const { file, maxRows } = request;
  enter("gold");
  let gold: RowsResult;
  try {
    gold = rows({ file, sql: request.goldSql, maxRows });
  } catch (error) {
    throw new GoldQueryFailure(error);
  }
  enter("predicted", gold.rows.length);
  let predicted: RowsResult;
  try {
    predicted = rows({ file, sql: request.predictedSql, maxRows });
  } catch (error) {
    return { gold_rows: gold.rows.length, predicted_rows: null, match: false, error: errorLine(error) };
  }
  enter("compare", gold.rows.length);
  return {
    gold_rows: gold.rows.length,
    predicted_rows: predicted.rows.length,
    match: resultsMatch(gold.rows, predicted.rows, request.mode),
    error: null,
  };
}

/** Runs one request; `enter` is told as a multi-step request (`verify`) starts each step. */
export function perform(
  request: QueryRequest,
  enter: (phase: JobPhase, goldRows?: number) => void = () => {},
): unknown {
  switch (request.op) {
    case "tables":
      return { tables: tableNames(request.file) };
    case "describe":
      return describe(request);
    case "query":
      return query(request);
    case "verify":
      return verify(request, enter);
  }
}

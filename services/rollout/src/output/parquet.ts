// Trajectories as Parquet, for Python training stacks (pyarrow, pandas, polars, DuckDB): one row
// per trajectory, token arrays as native list columns, nested records as JSON text (plain strings:
// the JSON annotation trips up some readers). Written one row group at a time (a token budget per group bounds memory) into a
// temporary file renamed on close; read back one row group at a time and validated by
// `trajectorySchema`. The column layout is documented in docs/trajectory.md ("Parquet").
import { randomBytes } from "node:crypto";
import { type FileHandle, open, rename, rm } from "node:fs/promises";
import {
  TRAJECTORY_SCHEMA_VERSION,
  type Trajectory,
  TrajectoryBuilder,
  trajectorySchema,
} from "@rlfactory/contracts";
import type { SchemaElement } from "hyparquet";
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from "hyparquet";
import { ByteWriter, type ColumnSource, ParquetWriter } from "hyparquet-writer";
import { z } from "zod";

/** Key of the file-level metadata entry naming the Trajectory schema version of the rows. */
export const TRAJECTORY_PARQUET_VERSION_KEY = "rlfactory.trajectory.schema_version";

const required = "REQUIRED" as const;
const optional = "OPTIONAL" as const;
const utf8 = (name: string, repetition_type: "REQUIRED" | "OPTIONAL"): SchemaElement => ({
  name,
  type: "BYTE_ARRAY",
  converted_type: "UTF8",
  repetition_type,
});
/** A non-null list of non-null values (the standard 3-level LIST: `name.list.element`). */
const list = (name: string, element: Pick<SchemaElement, "type" | "converted_type">): SchemaElement[] => [
  { name, repetition_type: required, converted_type: "LIST", num_children: 1 },
  { name: "list", repetition_type: "REPEATED", num_children: 1 },
  { name: "element", repetition_type: required, ...element },
];

/** Top-level columns in file order (every field of the contract's trajectory, plus `policy_step`). */
const COLUMNS = [
  "schema_version",
  "task_id",
  "group_id",
  "sample_index",
  "policy_version",
  "policy_step",
  "prompt_ids",
  "response_ids",
  "loss_mask",
  "rollout_logprobs",
  "logprobs_kind",
  "sampling_temperature",
  "reward",
  "advantage",
  "stale",
  "status",
  "status_reason",
  "turns",
  "tool_calls",
  "reward_components",
  "reward_error",
  "turn_rewards",
  "timings",
  "metadata",
  "images",
] as const;

/** Columns added after the first files were written: a file without them still reads (the fields are absent). */
const LATER_COLUMNS: ReadonlySet<string> = new Set([
  "logprobs_kind",
  "sampling_temperature",
  "stale",
  "images",
]);
type Column = (typeof COLUMNS)[number];
const JSON_COLUMNS = new Set<Column>([
  "turns",
  "tool_calls",
  "reward_components",
  "reward_error",
  "turn_rewards",
  "timings",
  "metadata",
  "images",
]);

/** The Parquet schema of a trajectory file (a flat list of elements, depth-first, as Parquet stores it). */
export const TRAJECTORY_PARQUET_SCHEMA: readonly SchemaElement[] = Object.freeze([
  { name: "root", num_children: COLUMNS.length },
  { name: "schema_version", type: "INT32", repetition_type: required },
  utf8("task_id", required),
  utf8("group_id", required),
  { name: "sample_index", type: "INT32", repetition_type: required },
  utf8("policy_version", optional),
  { name: "policy_step", type: "INT64", repetition_type: optional },
  ...list("prompt_ids", { type: "INT32" }),
  ...list("response_ids", { type: "INT32" }),
  ...list("loss_mask", { type: "INT32", converted_type: "INT_8" }),
  ...list("rollout_logprobs", { type: "DOUBLE" }),
  utf8("logprobs_kind", optional),
  { name: "sampling_temperature", type: "DOUBLE", repetition_type: optional },
  { name: "reward", type: "DOUBLE", repetition_type: optional },
  { name: "advantage", type: "DOUBLE", repetition_type: optional },
  { name: "stale", type: "BOOLEAN", repetition_type: optional },
  utf8("status", required),
  utf8("status_reason", optional),
  utf8("turns", required),
  utf8("tool_calls", required),
  utf8("reward_components", required),
  utf8("reward_error", optional),
  utf8("turn_rewards", optional),
  utf8("timings", required),
  utf8("metadata", optional),
  utf8("images", optional),
]);

export interface TrajectoryParquetOptions {
  /**
   * A row group is closed once its trajectories hold this many tokens (prompt + response), which
   * bounds the writer's memory (default 262,144: about 64 trajectories of 4k tokens).
   */
  rowGroupTokens?: number;
  /** ... or this many trajectories (default 1,024). */
  rowGroupRows?: number;
}

const DEFAULT_ROW_GROUP_TOKENS = 262_144;
const DEFAULT_ROW_GROUP_ROWS = 1024;

/** hyparquet-writer's byte buffer, flushed to an open file after each row group (then reused). */
class FileSink extends ByteWriter {
  readonly #file: FileHandle;

  constructor(file: FileHandle) {
    super(1 << 20);
    this.#file = file;
  }

  async flush(): Promise<void> {
    if (this.index === 0) return;
    await this.#file.writeFile(new Uint8Array(this.buffer, 0, this.index));
    this.index = 0;
  }

  override finish(): Promise<void> {
    return this.flush();
  }
}

/** The record, validated; kept as given (no copy: only schema fields are written). */
function toRecord(r: Trajectory | TrajectoryBuilder, i: number): Trajectory {
  if (r instanceof TrajectoryBuilder) return r.toJSON();
  const parsed = trajectorySchema.safeParse(r);
  if (!parsed.success) throw new Error(`trajectory ${i}: ${z.prettifyError(parsed.error)}`);
  return r;
}

/** One row group's column data, in COLUMNS order. */
function columnData(rows: readonly Trajectory[]): ColumnSource[] {
  const pick = <T>(f: (t: Trajectory) => T) => rows.map(f);
  const data: Record<Column, unknown[]> = {
    schema_version: pick((t) => t.schema_version),
    task_id: pick((t) => t.task_id),
    group_id: pick((t) => t.group_id),
    sample_index: pick((t) => t.sample_index),
    policy_version: pick((t) => (t.policy_version === null ? null : String(t.policy_version))),
    policy_step: pick((t) => (typeof t.policy_version === "number" ? BigInt(t.policy_version) : null)),
    prompt_ids: pick((t) => t.prompt_ids),
    response_ids: pick((t) => t.response_ids),
    loss_mask: pick((t) => t.loss_mask),
    rollout_logprobs: pick((t) => t.rollout_logprobs),
    logprobs_kind: pick((t) => t.logprobs_kind ?? null),
    sampling_temperature: pick((t) => t.sampling_temperature ?? null),
    reward: pick((t) => t.reward),
    advantage: pick((t) => t.advantage ?? null),
    stale: pick((t) => t.stale ?? null),
    status: pick((t) => t.status),
    status_reason: pick((t) => t.status_reason),
    turns: pick((t) => JSON.stringify(t.turns)),
    tool_calls: pick((t) => JSON.stringify(t.tool_calls)),
    reward_components: pick((t) => JSON.stringify(t.reward_components)),
    reward_error: pick((t) => (t.reward_error == null ? null : JSON.stringify(t.reward_error))),
    turn_rewards: pick((t) => (t.turn_rewards === undefined ? null : JSON.stringify(t.turn_rewards))),
    timings: pick((t) => JSON.stringify(t.timings)),
    metadata: pick((t) => (t.metadata === undefined ? null : JSON.stringify(t.metadata))),
    images: pick((t) => (t.images === undefined ? null : JSON.stringify(t.images))),
  };
  // Min/max of JSON text mean nothing: no statistics for those columns. Logprobs are split by byte
  // (BYTE_STREAM_SPLIT): floats rarely repeat, so dictionary pages only cost time.
  return COLUMNS.map((name) => ({
    name,
    data: data[name],
    ...(JSON_COLUMNS.has(name) ? { statistics: false } : {}),
    ...(name === "rollout_logprobs" ? { encoding: "BYTE_STREAM_SPLIT" as const } : {}),
  }));
}

/**
 * Writes trajectories to one Parquet file incrementally: `write` as batches arrive, `close` to
 * finish (the file appears at `path` only then), `abort` to drop it.
 */
export class TrajectoryParquetWriter {
  readonly path: string;
  readonly #tmp: string;
  readonly #file: FileHandle;
  readonly #sink: FileSink;
  readonly #writer: ParquetWriter;
  readonly #groupTokens: number;
  readonly #groupRows: number;
  #pending: Trajectory[] = [];
  #pendingTokens = 0;
  #rows = 0;
  #state: "open" | "closing" | "closed" | "failed" = "open";
  /** The write in progress (writes run one after another). */
  #queue: Promise<void> = Promise.resolve();

  private constructor(path: string, tmp: string, file: FileHandle, options: TrajectoryParquetOptions) {
    this.path = path;
    this.#tmp = tmp;
    this.#file = file;
    this.#sink = new FileSink(file);
    this.#groupTokens = options.rowGroupTokens ?? DEFAULT_ROW_GROUP_TOKENS;
    this.#groupRows = options.rowGroupRows ?? DEFAULT_ROW_GROUP_ROWS;
    for (const [k, v] of [
      ["rowGroupTokens", this.#groupTokens],
      ["rowGroupRows", this.#groupRows],
    ] as const) {
      if (!Number.isInteger(v) || v <= 0) throw new RangeError(`${k} must be a positive integer, got ${v}`);
    }
    this.#writer = new ParquetWriter({
      writer: this.#sink,
      schema: [...TRAJECTORY_PARQUET_SCHEMA],
      createdBy: "rlfactory trainer",
      kvMetadata: [{ key: TRAJECTORY_PARQUET_VERSION_KEY, value: String(TRAJECTORY_SCHEMA_VERSION) }],
    });
  }

  static async open(path: string, options: TrajectoryParquetOptions = {}): Promise<TrajectoryParquetWriter> {
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    const file = await open(tmp, "wx");
    try {
      return new TrajectoryParquetWriter(path, tmp, file, options);
    } catch (e) {
      await file.close();
      await rm(tmp, { force: true });
      throw e;
    }
  }

  /** Trajectories accepted so far (some may still be buffered for the current row group). */
  get rows(): number {
    return this.#rows;
  }

  /**
   * Validates the batch (nothing of it is kept if one record is invalid), then buffers it and writes
   * each row group as it fills. Calls may overlap: batches are written in call order.
   */
  async write(records: readonly (Trajectory | TrajectoryBuilder)[]): Promise<void> {
    this.#checkOpen("write");
    const batch = records.map((r, i) => toRecord(r, this.#rows + i));
    this.#rows += batch.length;
    const run = this.#queue.then(() => this.#append(batch));
    this.#queue = run.catch(() => {});
    await run;
  }

  async #append(batch: readonly Trajectory[]): Promise<void> {
    for (const t of batch) {
      if (this.#failed()) throw new Error("TrajectoryParquetWriter.write: writer is failed");
      this.#pending.push(t);
      this.#pendingTokens += t.prompt_ids.length + t.response_ids.length;
      if (this.#pendingTokens >= this.#groupTokens || this.#pending.length >= this.#groupRows) {
        await this.#flushGroup();
      }
    }
  }

  async #flushGroup(): Promise<void> {
    if (this.#pending.length === 0) return;
    const rows = this.#pending;
    this.#pending = [];
    this.#pendingTokens = 0;
    try {
      await this.#writer.write({ columnData: columnData(rows), rowGroupSize: rows.length });
    } catch (e) {
      this.#state = "failed";
      throw e;
    }
  }

  /** Writes what is buffered and the footer, then moves the file to `path`. */
  async close(): Promise<void> {
    this.#checkOpen("close");
    this.#state = "closing";
    try {
      await this.#queue;
      if (this.#failed()) throw new Error("TrajectoryParquetWriter.close: a write failed");
      await this.#flushGroup();
      await this.#writer.finish();
      await this.#file.close();
      await rename(this.#tmp, this.path);
      this.#state = "closed";
    } catch (e) {
      await this.abort();
      throw e;
    }
  }

  /** Drops the file (nothing appears at `path`). Safe to call more than once. */
  async abort(): Promise<void> {
    if (this.#state === "closed") return;
    this.#state = "failed";
    await this.#queue;
    await this.#file.close().catch(() => {});
    await rm(this.#tmp, { force: true });
  }

  /** A method, not an inline test: the state changes across awaits, which narrowing does not see. */
  #failed(): boolean {
    return this.#state === "failed";
  }

  #checkOpen(what: string): void {
    if (this.#state !== "open") throw new Error(`TrajectoryParquetWriter.${what}: writer is ${this.#state}`);
  }
}

/**
 * Writes trajectories to a Parquet file (replacing it), validated first: if one is invalid nothing
 * is written. A row group closes once it reaches `rowGroupTokens` (see TrajectoryParquetOptions).
 */
export async function writeTrajectoriesParquet(
  path: string,
  trajectories: readonly (Trajectory | TrajectoryBuilder)[],
  options: TrajectoryParquetOptions = {},
): Promise<void> {
  const writer = await TrajectoryParquetWriter.open(path, options);
  try {
    await writer.write(trajectories);
  } catch (e) {
    await writer.abort();
    throw e;
  }
  await writer.close();
}

function fromRow(row: Record<string, unknown>, where: string): Trajectory {
  const field = (name: Column): unknown => {
    const v = row[name];
    if (v === undefined || v === null) return undefined;
    if (!JSON_COLUMNS.has(name)) return v;
    try {
      return JSON.parse(v as string);
    } catch (e) {
      throw new Error(`${where}: column ${name} is not JSON (${(e as Error).message})`);
    }
  };
  const step = field("policy_step");
  const record: Record<string, unknown> = {
    schema_version: field("schema_version"),
    task_id: field("task_id"),
    group_id: field("group_id"),
    sample_index: field("sample_index"),
    policy_version: typeof step === "bigint" ? Number(step) : (field("policy_version") ?? null),
    prompt_ids: field("prompt_ids"),
    response_ids: field("response_ids"),
    loss_mask: field("loss_mask"),
    rollout_logprobs: field("rollout_logprobs"),
    turns: field("turns"),
    tool_calls: field("tool_calls"),
    reward: field("reward") ?? null,
    reward_components: field("reward_components"),
    status: field("status"),
    status_reason: field("status_reason") ?? null,
    timings: field("timings"),
  };
  // Optional fields: a null cell reads back as an absent field.
  for (const name of [
    "logprobs_kind",
    "sampling_temperature",
    "advantage",
    "stale",
    "reward_error",
    "turn_rewards",
    "metadata",
    "images",
  ] as const) {
    const v = field(name);
    if (v !== undefined) record[name] = v;
  }
  const parsed = trajectorySchema.safeParse(record);
  if (!parsed.success) throw new Error(`${where}: not a valid trajectory: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/**
 * Reads a trajectory Parquet file one row group at a time, yielding validated records (errors
 * name the file and the 0-based row).
 */
export async function* iterateTrajectoriesParquet(path: string): AsyncGenerator<Trajectory> {
  const file = await asyncBufferFromFile(path);
  const metadata = await parquetMetadataAsync(file);
  const names = new Set(metadata.schema.map((e) => e.name));
  const missing = COLUMNS.filter((c) => !names.has(c) && !LATER_COLUMNS.has(c));
  if (missing.length > 0) {
    throw new Error(`${path}: not a trajectory Parquet file (missing columns: ${missing.join(", ")})`);
  }
  let start = 0;
  for (const group of metadata.row_groups) {
    const end = start + Number(group.num_rows);
    const rows = await parquetReadObjects({
      file,
      metadata,
      rowStart: start,
      rowEnd: end,
      columns: [...COLUMNS],
    });
    for (const [i, row] of rows.entries()) yield fromRow(row, `${path}: row ${start + i}`);
    start = end;
  }
}

/** Reads a whole trajectory Parquet file (see iterateTrajectoriesParquet). */
export async function readTrajectoriesParquet(path: string): Promise<Trajectory[]> {
  const out: Trajectory[] = [];
  for await (const t of iterateTrajectoriesParquet(path)) out.push(t);
  return out;
}

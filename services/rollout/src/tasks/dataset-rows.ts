// Row access to a dataset file, JSONL or Parquet: how many rows it has, and the rows at chosen
// indices with a location for error messages (`file:line` for JSONL, `file: row N` for Parquet).
// Only the rows asked for are parsed, so `limit` on a large file stays cheap.
import { readFile } from "node:fs/promises";
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from "hyparquet";

export interface LocatedRow {
  row: unknown;
  /** `path:line` (JSONL, 1-based line) or `path: row N (0-based)` (Parquet). */
  where: string;
}

export interface DatasetRows {
  readonly count: number;
  /** The rows at these 0-based indices, in the order given. */
  read(indices: readonly number[]): Promise<LocatedRow[]>;
}

/** Thrown for any problem with a dataset file; the message starts with the file (and line or row). */
export class DatasetError extends Error {
  override name = "DatasetError";
}

export async function openJsonlRows(path: string): Promise<DatasetRows> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    throw new DatasetError(`cannot read dataset ${path}: ${(e as Error).message}`);
  }
  const lines: { text: string; line: number }[] = [];
  text.split("\n").forEach((t, i) => {
    if (t.trim() !== "") lines.push({ text: t, line: i + 1 });
  });
  return {
    count: lines.length,
    async read(indices) {
      return indices.map((i) => {
        const l = lines[i];
        if (l === undefined) throw new RangeError(`row ${i} out of range (${lines.length} rows)`);
        const where = `${path}:${l.line}`;
        try {
          return { row: JSON.parse(l.text) as unknown, where };
        } catch (e) {
          throw new DatasetError(`${where}: not JSON (${(e as Error).message})`);
        }
      });
    },
  };
}

/** Parquet values as JSON-like data: int64 (bigint) becomes a number, or a string beyond 2^53. */
function plain(v: unknown): unknown {
  if (typeof v === "bigint") return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  }
  return v;
}

export async function openParquetRows(path: string): Promise<DatasetRows> {
  let file: Awaited<ReturnType<typeof asyncBufferFromFile>>;
  let count: number;
  try {
    file = await asyncBufferFromFile(path);
    count = Number((await parquetMetadataAsync(file)).num_rows);
  } catch (e) {
    throw new DatasetError(`cannot read dataset ${path} as Parquet: ${(e as Error).message}`);
  }
  return {
    count,
    async read(indices) {
      if (indices.length === 0) return [];
      let lo = Number.POSITIVE_INFINITY;
      let hi = -1;
      for (const i of indices) {
        if (!Number.isInteger(i) || i < 0 || i >= count)
          throw new RangeError(`row ${i} out of range (${count} rows)`);
        lo = Math.min(lo, i);
        hi = Math.max(hi, i);
      }
      let rows: Record<string, unknown>[];
      try {
        rows = await parquetReadObjects({ file, rowStart: lo, rowEnd: hi + 1 });
      } catch (e) {
        throw new DatasetError(`cannot read rows ${lo}–${hi} of ${path}: ${(e as Error).message}`);
      }
      return indices.map((i) => ({ row: plain(rows[i - lo]), where: `${path}: row ${i} (0-based)` }));
    },
  };
}

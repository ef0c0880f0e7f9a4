// loadTasks: a dataset config → the tasks to run. Picks the rows (seeded shuffle, then offset and
// limit), reads only those, converts each by its shape and names the file and line of any bad row.
import { basename, dirname, extname, resolve } from "node:path";
import type { Task } from "@rlfactory/contracts";
import { z } from "zod";
import { type DatasetConfig, type DatasetConfigInput, datasetConfigSchema } from "./dataset-config.ts";
import { DatasetError, type DatasetRows, openJsonlRows, openParquetRows } from "./dataset-rows.ts";
import { seededPermutation } from "./seeded-permutation.ts";
import { taskFromRow } from "./task-row.ts";

const PARQUET_EXTENSIONS = new Set([".parquet", ".pq"]);

/** The file format a config resolves to (`auto`: by extension, JSONL unless `.parquet`/`.pq`). */
export function datasetFormat(config: Pick<DatasetConfig, "path" | "format">): "jsonl" | "parquet" {
  if (config.format !== "auto") return config.format;
  return PARQUET_EXTENSIONS.has(extname(config.path).toLowerCase()) ? "parquet" : "jsonl";
}

/** The row indices a config selects out of `count`: shuffled by seed (if any), then offset, then limit. */
export function selectRows(
  config: Pick<DatasetConfig, "shuffle_seed" | "offset" | "limit">,
  count: number,
): number[] {
  const order =
    config.shuffle_seed === undefined
      ? Array.from({ length: count }, (_, i) => i)
      : seededPermutation(count, config.shuffle_seed);
  const start = config.offset ?? 0;
  return order.slice(start, config.limit === undefined ? undefined : start + config.limit);
}

/**
 * Loads the tasks a dataset config names (relative paths resolve against the working directory).
 * Throws DatasetError: bad config, unreadable file, a row of no known shape or an invalid one (with
 * `file:line`), duplicate task ids.
 */
export async function loadTasks(spec: DatasetConfigInput): Promise<Task[]> {
  const parsed = datasetConfigSchema.safeParse(spec);
  if (!parsed.success) throw new DatasetError(`invalid dataset config: ${z.prettifyError(parsed.error)}`);
  const config = parsed.data;
  const path = resolve(config.path);
  const rows: DatasetRows =
    datasetFormat(config) === "parquet" ? await openParquetRows(path) : await openJsonlRows(path);
  const fallbackDataSource = basename(dirname(path));
  const seen = new Map<string, string>();
  const tasks: Task[] = [];
  const indices = selectRows(config, rows.count);
  const located = await rows.read(indices);
  for (const [k, { row, where }] of located.entries()) {
    let task: Task;
    try {
      task = taskFromRow(row, {
        rowIndex: indices[k]!,
        dataSource: config.data_source,
        fallbackDataSource,
        template: config.prompt?.template,
        system: config.prompt?.system,
      });
    } catch (e) {
      throw new DatasetError(`${where}: ${(e as Error).message}`);
    }
    const first = seen.get(task.id);
    if (first !== undefined)
      throw new DatasetError(`${where}: duplicate task id "${task.id}" (first at ${first})`);
    seen.set(task.id, where);
    tasks.push(task);
  }
  return tasks;
}

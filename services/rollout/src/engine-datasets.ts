// Rollout tasks as each training engine's own dataset rows, the whole task riding along as `rlf_task`
// (its JSON text) where that engine hands it to our adapter (docs/training.md "Whole tasks"):
//   verl   Parquet: data_source, prompt, reward_model {style, ground_truth}, extra_info {index, task_id,
//          rlf_task}, agent_name "rlfactory" (the row runs in `RLFactoryAgentLoop`)
//   slime  JSONL: prompt, label (the ground truth), metadata {rlf_task, data_source}
//          (`--input-key prompt --label-key label --metadata-key metadata`)
//   skyrl  Parquet: prompt, data_source, reward_spec {method, ground_truth}, rlf_task (every column but
//          prompt and env_class reaches the generator in env_extras)
//   trl    JSONL: prompt, rlf_task (`datasets.load_dataset("json", ...)`; `tasks_by_prompt` reads rlf_task)
// Parquet columns need one type per column: prompts keep `role` and `content` only, and a ground truth that
// is not a string becomes its JSON text there; the task itself, every field intact, is in `rlf_task`.
import { writeFile } from "node:fs/promises";
import type { Task } from "@rlfactory/contracts";
import type { SchemaElement } from "hyparquet";
import { type ColumnSource, parquetWriteFile } from "hyparquet-writer";

export const ENGINES = ["verl", "slime", "skyrl", "trl"] as const;
export type Engine = (typeof ENGINES)[number];

/** The dataset key (column, `extra_info` / `metadata` / `env_extras` key) that carries a whole task. */
export const RLF_TASK_KEY = "rlf_task";

/** The agent loop verl runs a row in (`agent_name` column): the rlfactory agent loop. */
export const VERL_AGENT_NAME = "rlfactory";

/** A task as read from its file: the validated task and the object exactly as written there. */
export interface SourceTask {
  task: Task;
  raw: Record<string, unknown>;
}

/** What file each engine reads. */
export const ENGINE_FORMATS: Readonly<Record<Engine, "parquet" | "jsonl">> = {
  verl: "parquet",
  slime: "jsonl",
  skyrl: "parquet",
  trl: "jsonl",
};

/** Writes `tasks` as `engine`'s dataset at `path`. */
export async function writeEngineDataset(
  engine: Engine,
  tasks: readonly SourceTask[],
  path: string,
): Promise<void> {
  switch (engine) {
    case "verl":
      return writeParquet(path, verlColumns(tasks));
    case "skyrl":
      return writeParquet(path, skyrlColumns(tasks));
    case "slime":
      return writeJsonl(path, tasks.map(slimeRow));
    case "trl":
      return writeJsonl(path, tasks.map(trlRow));
  }
}

const wholeTask = (t: SourceTask): string => JSON.stringify(t.raw);
const messages = (t: SourceTask) => t.task.prompt.map((m) => ({ role: m.role, content: m.content }));
const groundTruthText = (t: SourceTask): string | null => {
  const gt = t.task.ground_truth;
  if (gt === undefined || gt === null) return null;
  return typeof gt === "string" ? gt : JSON.stringify(gt);
};

function slimeRow(t: SourceTask): Record<string, unknown> {
  return {
    prompt: messages(t),
    label: t.task.ground_truth ?? null,
    metadata: { [RLF_TASK_KEY]: wholeTask(t), data_source: t.task.data_source },
  };
}

function trlRow(t: SourceTask): Record<string, unknown> {
  return { prompt: messages(t), [RLF_TASK_KEY]: wholeTask(t) };
}

interface Column {
  name: string;
  schema: SchemaElement[];
  data: unknown[];
}

const str = (name: string): SchemaElement => ({
  name,
  type: "BYTE_ARRAY",
  converted_type: "UTF8",
  repetition_type: "OPTIONAL",
});
const int64 = (name: string): SchemaElement => ({ name, type: "INT64", repetition_type: "OPTIONAL" });
const struct = (name: string, children: SchemaElement[]): SchemaElement[] => [
  { name, repetition_type: "OPTIONAL", num_children: children.length },
  ...children,
];
/** A list of {role, content} (the 3-level LIST pyarrow and HF datasets write). */
const messageList = (name: string): SchemaElement[] => [
  { name, repetition_type: "OPTIONAL", converted_type: "LIST", num_children: 1 },
  { name: "list", repetition_type: "REPEATED", num_children: 1 },
  ...struct("element", [str("role"), str("content")]),
];

function verlColumns(tasks: readonly SourceTask[]): Column[] {
  return [
    { name: "data_source", schema: [str("data_source")], data: tasks.map((t) => t.task.data_source) },
    { name: "prompt", schema: messageList("prompt"), data: tasks.map(messages) },
    {
      name: "reward_model",
      schema: struct("reward_model", [str("style"), str("ground_truth")]),
      data: tasks.map((t) => ({ style: "rule", ground_truth: groundTruthText(t) })),
    },
    {
      name: "extra_info",
      schema: struct("extra_info", [int64("index"), str("task_id"), str(RLF_TASK_KEY)]),
      data: tasks.map((t, i) => ({ index: BigInt(i), task_id: t.task.id, [RLF_TASK_KEY]: wholeTask(t) })),
    },
    { name: "agent_name", schema: [str("agent_name")], data: tasks.map(() => VERL_AGENT_NAME) },
  ];
}

function skyrlColumns(tasks: readonly SourceTask[]): Column[] {
  return [
    { name: "prompt", schema: messageList("prompt"), data: tasks.map(messages) },
    { name: "data_source", schema: [str("data_source")], data: tasks.map((t) => t.task.data_source) },
    {
      name: "reward_spec",
      schema: struct("reward_spec", [str("method"), str("ground_truth")]),
      data: tasks.map((t) => ({ method: "rule", ground_truth: groundTruthText(t) })),
    },
    { name: RLF_TASK_KEY, schema: [str(RLF_TASK_KEY)], data: tasks.map(wholeTask) },
  ];
}

function writeParquet(path: string, columns: readonly Column[]): void {
  const schema: SchemaElement[] = [
    { name: "root", num_children: columns.length },
    ...columns.flatMap((c) => c.schema),
  ];
  const columnData = columns.map((c) => ({ name: c.name, data: c.data })) as ColumnSource[];
  parquetWriteFile({ filename: path, schema, columnData });
}

async function writeJsonl(path: string, rows: readonly Record<string, unknown>[]): Promise<void> {
  await writeFile(path, rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
}

// Tasks: dataset files (JSONL or Parquet; Task, verl/Search-R1 and FlashRAG rows) → Task[], the
// prompt templates that turn bare questions into chat messages, and the sample set in the repo.
export * from "./dataset-config.ts";
export { DatasetError } from "./dataset-rows.ts";
export * from "./load-tasks.ts";
export * from "./prompt-templates.ts";
export * from "./sample-data.ts";
export { detectTaskRowShape, type TaskRowContext, type TaskRowShape, taskFromRow } from "./task-row.ts";

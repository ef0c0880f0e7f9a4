// FTRL's published formats (arXiv 2508.08791): import as environment bundles, and task rows as rollout tasks.
export { FtrlFormatError } from "./ftrl-error.ts";
export { type FtrlImportOptions, importFtrl } from "./ftrl-import.ts";
export { ftrlTaskId } from "./ftrl-rows.ts";
export { convertFtrlTasks, DEFAULT_FTRL_SERVER, type FtrlTask, type FtrlTasksOptions } from "./ftrl-tasks.ts";

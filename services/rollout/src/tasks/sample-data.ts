// The task set shipped in the repo: 30 HotpotQA dev questions whose context paragraphs are the search
// tool's bundled corpus (services/tools/data/search), so a rollout can answer them offline.
// Attribution and license (CC BY-SA 4.0): services/rollout/data/SOURCE.md.
import { fileURLToPath } from "node:url";
import type { DatasetConfigInput } from "./dataset-config.ts";

/** Absolute path of `services/rollout/data/hotpotqa-sample.jsonl` (FlashRAG rows: id, question, golden_answers). */
export const SAMPLE_HOTPOTQA_TASKS: string = fileURLToPath(
  new URL("../../data/hotpotqa-sample.jsonl", import.meta.url),
);

/** A dataset config for the sample (its folder is `data`, so the data source is named here). */
export const SAMPLE_HOTPOTQA_DATASET: DatasetConfigInput = Object.freeze({
  path: SAMPLE_HOTPOTQA_TASKS,
  data_source: "hotpotqa",
});

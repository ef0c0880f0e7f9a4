// The `dataset` section of a rollout config: which file of tasks, how to read it, how to turn bare
// questions into prompts, and which slice of it to run. Parsed once, at the edge.
import { z } from "zod";
import { promptTemplateNameSchema } from "./prompt-templates.ts";

const nonNegInt = z.number().int().nonnegative();

export const datasetConfigSchema = z.strictObject({
  /** A JSONL or Parquet file of tasks (relative paths resolve against the config file's folder). */
  path: z.string().min(1),
  /** `auto`: by extension (`.parquet` / `.pq` → parquet, anything else → JSONL). */
  format: z.enum(["auto", "jsonl", "parquet"]).default("auto"),
  prompt: z
    .strictObject({
      /**
       * How rows become chat messages. Default: `none` for rows that carry a prompt (Task and verl
       * rows), `hermes-qa` for bare questions (FlashRAG rows). A template given here is applied to
       * every row, built from its question (`question`, or `extra_info.question`).
       */
      template: promptTemplateNameSchema.optional(),
      /** Replaces the template's (or the row's) system message; prepended where there is none. */
      system: z.string().optional(),
    })
    .optional(),
  /** Overrides every row's `data_source` (default: the row's own, else the file's folder name). */
  data_source: z.string().min(1).optional(),
  /** After shuffling and `offset`: keep at most this many tasks. */
  limit: z.number().int().positive().optional(),
  /** After shuffling: skip this many tasks. */
  offset: nonNegInt.default(0),
  /** Shuffle all rows with this seed (deterministic) before `offset`/`limit`; omitted: file order. */
  shuffle_seed: z.number().int().optional(),
});

export type DatasetConfig = z.infer<typeof datasetConfigSchema>;
export type DatasetConfigInput = z.input<typeof datasetConfigSchema>;

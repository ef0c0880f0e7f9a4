// The environment bundle's files as zod schemas: manifest.json, tools.json, the lines of tasks.jsonl.
// The format is described in services/environments/README.md ("Environment bundles").
import { z } from "zod";

export const BUNDLE_FORMAT = "rlfactory.environment-bundle";
export const BUNDLE_FORMAT_VERSION = 1;

/** A tool name: a Python identifier (it is also `code/<name>.py` and the function's name). */
export const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A table name: `data/<name>.json`; no path separators, not hidden. */
export const TABLE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
/** A file digest: `sha256:` + 64 lowercase hex digits. */
const DIGEST = /^sha256:[0-9a-f]{64}$/;

export const BundleFormSchema = z.enum(["sample", "environment"]);
export type BundleForm = z.infer<typeof BundleFormSchema>;

/** `source`: where the bundle came from; `kind` plus free fields (e.g. `model`, `fixture`). */
export const BundleSourceSchema = z.looseObject({
  kind: z.enum(["rlf-env-build", "ftrl-sample", "ftrl-environment"]),
});
export type BundleSource = z.infer<typeof BundleSourceSchema>;

/** One tool of tools.json. */
export const BundleToolSchema = z.object({
  name: z.string().regex(TOOL_NAME, "a tool name must be a Python identifier"),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
});
export type BundleTool = z.infer<typeof BundleToolSchema>;

export const ComplexitySchema = z.object({
  structure: z.string(),
  hops: z.number().int(),
  parallel: z.number().int(),
  tools: z.number().int(),
  distractors: z.number().int(),
  parameter_types: z.array(z.string()),
});
export type Complexity = z.infer<typeof ComplexitySchema>;

export const BundleActionSchema = z.object({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()),
});
export type BundleAction = z.infer<typeof BundleActionSchema>;

/** One line of tasks.jsonl. */
export const BundleTaskSchema = z.object({
  id: z.string().min(1),
  tools: z.array(z.string().min(1)),
  question: z.string().optional(),
  instruction: z.string().optional(),
  unsolved_set: z.record(z.string(), z.array(z.unknown())).optional(),
  answer: z.string().optional(),
  actions: z.array(BundleActionSchema).optional(),
  complexity: ComplexitySchema.optional(),
});
export type BundleTask = z.infer<typeof BundleTaskSchema>;

export const BundleManifestSchema = z.object({
  format: z.literal(BUNDLE_FORMAT),
  version: z.literal(BUNDLE_FORMAT_VERSION),
  name: z.string().min(1),
  form: BundleFormSchema,
  source: BundleSourceSchema,
  versions: z.looseObject({ rlfactory: z.string(), format: z.literal(BUNDLE_FORMAT_VERSION) }),
  files: z.record(z.string(), z.string().regex(DIGEST, 'a digest is "sha256:<64 hex digits>"')),
  hash: z.string().regex(DIGEST, 'the hash is "sha256:<64 hex digits>"'),
});
export type BundleManifest = z.infer<typeof BundleManifestSchema>;

/** What a bundle holds, as `writeBundle` takes it. */
export interface BundleContent {
  name: string;
  form: BundleForm;
  source: BundleSource;
  /** Every tool of the bundle (written in tool-name order). */
  tools: BundleTool[];
  /** Tool name → its Python source (`code/<tool>.py`); one per tool. */
  code: Record<string, string>;
  /**
   * Environment form: table name → its content (`data/<table>.json`): a JsonText is written byte for
   * byte (what `importFtrl` and `readBundle` give: FTRL's key order and `N.0` floats kept), any other
   * value as 2-space JSON.
   */
  data?: Record<string, unknown>;
  /** The bundle's tasks (written in id order). */
  tasks: BundleTask[];
  /** The validation report of `rlf env build` (`validation.json`), when there is one. */
  validation?: unknown;
}

/** A bundle read back and verified. */
export interface Bundle extends Required<Omit<BundleContent, "validation">> {
  /** The bundle's directory, as given to `readBundle`. */
  dir: string;
  manifest: BundleManifest;
  /** `manifest.hash`, verified. */
  hash: string;
  validation?: unknown;
}

// One dataset row → one Task. Three row shapes are accepted, detected per row:
//   task      our own Task rows: `id`, `prompt` (chat messages), `ground_truth`, ...;
//   verl      Search-R1 / verl rows: `data_source`, `prompt`, `ability`, `reward_model: {style,
//             ground_truth}`, `extra_info: {index, split, ...}`;
//   flashrag  FlashRAG QA rows: `id`, `question`, `golden_answers` (no prompt: a template builds one).

import { type ChatMessage, chatMessageSchema, type Task, taskSchema } from "@rlfactory/contracts";
import { z } from "zod";
import { type PromptTemplateName, renderPromptTemplate, withSystemMessage } from "./prompt-templates.ts";

export type TaskRowShape = "task" | "verl" | "flashrag";

/** What a row is converted with: the config's choices and where the row sits. */
export interface TaskRowContext {
  /** 0-based index of the row in its file (ids fall back to it). */
  rowIndex: number;
  /** The config's `data_source`: overrides every row's. */
  dataSource?: string | undefined;
  /** Used when neither the config nor the row names a data source (the file's folder name). */
  fallbackDataSource: string;
  template?: PromptTemplateName | undefined;
  system?: string | undefined;
}

const idSchema = z.union([z.string().min(1), z.number().int()]).transform(String);
const record = z.record(z.string(), z.unknown());

/** Chat messages as datasets store them: keys with null values (Parquet struct fields of other rows) dropped. */
const promptSchema = z.preprocess(
  (v) =>
    Array.isArray(v)
      ? v.map((m) =>
          m !== null && typeof m === "object" && !Array.isArray(m)
            ? Object.fromEntries(Object.entries(m).filter(([, x]) => x !== null && x !== undefined))
            : m,
        )
      : v,
  z.array(chatMessageSchema).min(1),
);

const taskRowSchema = z.looseObject({
  id: idSchema,
  data_source: z.string().min(1).nullish(),
  prompt: promptSchema,
  ground_truth: z.unknown().optional(),
  extra_info: record.nullish(),
});

const verlRowSchema = z.looseObject({
  data_source: z.string().min(1).nullish(),
  prompt: promptSchema.optional(),
  ability: z.string().nullish(),
  reward_model: z
    .looseObject({ style: z.string().nullish(), ground_truth: z.unknown().optional() })
    .nullish(),
  extra_info: record.nullish(),
  question: z.string().nullish(),
});

const flashragRowSchema = z.looseObject({
  id: idSchema.optional(),
  question: z.string(),
  golden_answers: z.array(z.string()),
});

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The row's shape by its keys, or null when it has none of them. */
export function detectTaskRowShape(row: unknown): TaskRowShape | null {
  if (!isObject(row)) return null;
  const has = (k: string) => row[k] !== undefined && row[k] !== null;
  if (has("reward_model")) return "verl";
  if (has("prompt") && has("id")) return "task";
  if (has("question") && has("golden_answers")) return "flashrag";
  if (has("prompt")) return "verl";
  return null;
}

function parse<T>(schema: z.ZodType<T>, shape: TaskRowShape, row: unknown): T {
  const r = schema.safeParse(row);
  if (!r.success)
    throw new Error(`not a valid ${shape} row: ${z.prettifyError(r.error).replaceAll("\n", "; ")}`);
  return r.data;
}

function stringField(obj: Record<string, unknown> | null | undefined, key: string): string | undefined {
  const v = obj?.[key];
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** The prompt: the row's own (`none`), or the template applied to its question. */
function buildPrompt(
  ctx: TaskRowContext,
  shape: TaskRowShape,
  own: ChatMessage[] | undefined,
  question: string | undefined,
): ChatMessage[] {
  const template = ctx.template ?? (own === undefined ? "hermes-qa" : "none");
  if (template === "none") {
    if (own === undefined) {
      throw new Error(`${shape} row has no prompt; use prompt.template "hermes-qa" or "search-r1"`);
    }
    return withSystemMessage(own, ctx.system);
  }
  if (question === undefined) {
    throw new Error(
      `prompt.template "${template}" needs the row's question (\`question\` or \`extra_info.question\`); this ${shape} row has none`,
    );
  }
  return renderPromptTemplate(template, question, { system: ctx.system });
}

/** Converts one row; throws an Error naming what is wrong (the caller adds file:line). */
export function taskFromRow(row: unknown, ctx: TaskRowContext): Task {
  const shape = detectTaskRowShape(row);
  if (shape === null) {
    const keys = isObject(row) ? `keys: ${Object.keys(row).join(", ") || "none"}` : `a ${typeof row}`;
    throw new Error(
      `row matches no known shape (${keys}); expected a Task row {id, prompt, ground_truth}, ` +
        "a verl/Search-R1 row {data_source, prompt, reward_model: {ground_truth}, extra_info} " +
        "or a FlashRAG row {id, question, golden_answers}",
    );
  }
  let task: unknown;
  if (shape === "task") {
    const r = parse(taskRowSchema, shape, row);
    const rowSource = r.data_source ?? undefined;
    const extra = r.extra_info ?? {};
    task = {
      ...r,
      data_source: ctx.dataSource ?? rowSource ?? ctx.fallbackDataSource,
      prompt: buildPrompt(ctx, shape, r.prompt, stringField(r, "question") ?? stringField(extra, "question")),
      extra_info: extra,
    };
  } else if (shape === "verl") {
    const r = parse(verlRowSchema, shape, row);
    const rowSource = r.data_source ?? undefined;
    const dataSource = ctx.dataSource ?? rowSource ?? ctx.fallbackDataSource;
    const info = Object.fromEntries(Object.entries(r.extra_info ?? {}).filter(([, v]) => v !== null));
    const question = r.question ?? stringField(info, "question");
    const infoId = info.id;
    const index = info.index;
    const id =
      (typeof infoId === "string" && infoId !== "") || typeof infoId === "number"
        ? String(infoId)
        : `${rowSource ?? dataSource}_${typeof index === "number" || typeof index === "string" ? index : ctx.rowIndex}`;
    const extra: Record<string, unknown> = { ...info };
    if (r.ability != null && extra.ability === undefined) extra.ability = r.ability;
    if (r.reward_model?.style != null && extra.reward_style === undefined)
      extra.reward_style = r.reward_model.style;
    if (question !== undefined && extra.question === undefined) extra.question = question;
    task = {
      id,
      data_source: dataSource,
      prompt: buildPrompt(ctx, shape, r.prompt, question),
      ground_truth: r.reward_model?.ground_truth ?? undefined,
      extra_info: extra,
    };
  } else {
    const r = parse(flashragRowSchema, shape, row);
    const dataSource = ctx.dataSource ?? ctx.fallbackDataSource;
    task = {
      id: r.id ?? `${dataSource}_${ctx.rowIndex}`,
      data_source: dataSource,
      prompt: buildPrompt(ctx, shape, undefined, r.question),
      ground_truth: { target: r.golden_answers },
      extra_info: { question: r.question },
    };
  }
  const parsed = taskSchema.safeParse(task);
  if (!parsed.success) {
    const id = isObject(task) && typeof task.id === "string" ? ` "${task.id}"` : "";
    throw new Error(
      `${shape} row gives an invalid task${id}: ${z.prettifyError(parsed.error).replaceAll("\n", "; ")}`,
    );
  }
  return parsed.data;
}

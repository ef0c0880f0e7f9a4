// One training/evaluation task: the prompt the policy sees and what the reward needs to score it.
// The shape follows the Search-R1/verl parquet row (`data_source`, `prompt`, `reward_model.ground_truth`,
// `extra_info`), so rows from either source map onto it without loss.
import { z } from "zod";
import { chatMessageSchema } from "./chat-message.ts";

const toolNames = z.array(z.string().min(1)).refine((names) => new Set(names).size === names.length, {
  message: "tool names must be unique",
});

/** A later user message of a scripted conversation (`turns`). */
export const taskTurnSchema = z.strictObject({
  content: z
    .string()
    .min(1)
    .describe(
      "The user message, appended (chat-template rendered, loss mask 0) when the model ends its turn.",
    ),
  tools: toolNames
    .optional()
    .describe("Tool names offered from this turn on; omitted: the tools offered so far stay."),
  ground_truth: z
    .unknown()
    .optional()
    .describe(
      "What a per-turn reward compares this user turn's outcome against (BFCL's per-turn ground truth); carried with the task, not read by the rollout loop. `bfcl_state` / `task_completion` / `bfcl_response` read it as a list of `{name, arguments}` calls with the model-visible (alias) names.",
    ),
});
export type TaskTurn = z.infer<typeof taskTurnSchema>;

/** An LLM user simulator (τ-bench style) writes the later user messages instead of a script. */
export const taskUserSimulatorSchema = z.looseObject({
  instruction: z
    .string()
    .min(1)
    .describe("What the simulated user wants and knows (its system instruction)."),
});
export type TaskUserSimulator = z.infer<typeof taskUserSimulatorSchema>;

/** The stateful environment a task runs in (docs/environments.md): one episode per trajectory. */
export const taskEnvironmentSchema = z.strictObject({
  server: z
    .string()
    .min(1)
    .describe("The gateway server name of the environment server (its tools are `server__tool`)."),
  config: z
    .record(z.string(), z.unknown())
    .default({})
    .describe(
      "The episode config (`StartEpisode` `config`), e.g. BFCL's `{involved_classes, initial_config}`.",
    ),
});
export type TaskEnvironment = z.infer<typeof taskEnvironmentSchema>;

/** Model-visible tool names → gateway tool names (`server__tool`). */
export const toolAliasesSchema = z.record(
  z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "an alias is 1-64 letters, digits, '_', '.', '-'"),
  z.string().min(1),
);

export const taskSchema = z
  .object({
    id: z.string().min(1),
    data_source: z
      .string()
      .default("unknown")
      .describe("Dataset name (`hotpotqa`, `nq`, `bamboogle`, ...): rewards and reports group by it."),
    prompt: z
      .array(chatMessageSchema)
      .min(1)
      .describe("The conversation the policy starts from (system + user message, usually)."),
    ground_truth: z
      .unknown()
      .optional()
      .describe(
        "What rule rewards compare against. QA: a string, a list of strings, or Search-R1's `{ target: [...] }`; tool-verified rewards take their own shape (e.g. `{ sql, db }`).",
      ),
    extra_info: z.record(z.string(), z.unknown()).default({}),
    tools: toolNames
      .optional()
      .describe("Tool names this task offers (on its first turn), instead of every configured tool."),
    turns: z
      .array(taskTurnSchema)
      .optional()
      .describe("Later user messages: each is appended when the model ends a turn without a tool call."),
    user_simulator: taskUserSimulatorSchema
      .optional()
      .describe(
        "The alternative to `turns`: an LLM writes the later user messages (rollout config `user_simulator`).",
      ),
    environment: taskEnvironmentSchema
      .optional()
      .describe("Its own environment: an episode per GRPO group, forked into the group's samples."),
    tool_aliases: toolAliasesSchema
      .optional()
      .describe(
        "Names the model sees and calls → the gateway tools they run (BFCL's `cd` → `bfcl__cd`). The tools are rendered under the alias names; a task with aliases and no `tools` offers its aliases.",
      ),
  })
  .refine((t) => t.turns === undefined || t.user_simulator === undefined, {
    message: "a task carries either scripted `turns` or a `user_simulator`, not both",
    path: ["user_simulator"],
  })
  .meta({
    title: "Task",
    description:
      "One training/evaluation task of rlfactory (docs/rollout.md): the prompt the policy sees and what the reward needs to score it; one JSON object per line of a task file. Invariants beyond the field types: (tools and each turn's tools hold no name twice); (a task carries either turns or user_simulator, not both).",
  });
export type Task = z.infer<typeof taskSchema>;

/** The gold answers of a QA task (string, list, or `{ target }`), or [] when it has none. */
export function goldAnswers(task: Pick<Task, "ground_truth">): string[] {
  const gt = task.ground_truth;
  if (typeof gt === "string") return [gt];
  if (Array.isArray(gt)) return gt.filter((x): x is string => typeof x === "string");
  if (gt !== null && typeof gt === "object" && "target" in gt) {
    const target = (gt as { target: unknown }).target;
    if (typeof target === "string") return [target];
    if (Array.isArray(target)) return target.filter((x): x is string => typeof x === "string");
  }
  return [];
}

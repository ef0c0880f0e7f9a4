// One training/evaluation task: the prompt the policy sees and what the reward needs to score it.
// The shape follows the Search-R1/verl parquet row (`data_source`, `prompt`, `reward_model.ground_truth`,
// `extra_info`), so rows from either source map onto it without loss.
import { z } from "zod";
import { chatMessageSchema } from "./tokenizer/chat-message.ts";

export const taskSchema = z.object({
  id: z.string().min(1),
  /** Dataset name (`hotpotqa`, `nq`, `bamboogle`, ...): rewards and reports group by it. */
  data_source: z.string().default("unknown"),
  /** The conversation the policy starts from (system + user message, usually). */
  prompt: z.array(chatMessageSchema).min(1),
  /**
   * What rule rewards compare against. QA: a string, a list of strings, or Search-R1's
   * `{ target: [...] }`; tool-verified rewards take their own shape (e.g. `{ sql, db }`).
   */
  ground_truth: z.unknown().optional(),
  extra_info: z.record(z.string(), z.unknown()).default({}),
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

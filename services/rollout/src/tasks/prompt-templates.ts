// Prompt templates: how a bare question (a FlashRAG QA row) becomes the chat messages the policy
// starts from. `search-r1` reproduces Search-R1's data preprocessing byte for byte (for parity runs
// with its `<search>` format); `hermes-qa` is for function-calling models whose chat template renders
// the tool list itself (Qwen3/Hermes `<tool_call>`), so the text never names a tool.

import type { ChatMessage } from "@rlfactory/contracts";
import { z } from "zod";

export const PROMPT_TEMPLATE_NAMES = ["search-r1", "hermes-qa", "none"] as const;
export const promptTemplateNameSchema = z.enum(PROMPT_TEMPLATE_NAMES);
export type PromptTemplateName = z.infer<typeof promptTemplateNameSchema>;

/**
 * Search-R1's instruction, verbatim from PeterGriffinJin/Search-R1 `scripts/data_process/nq_search.py`
 * (`make_prefix`, template_type `base`), typo "as your want" included: models trained on it saw it.
 */
export const SEARCH_R1_INSTRUCTION =
  "Answer the given question. " +
  "You must conduct reasoning inside <think> and </think> first every time you get new information. " +
  "After reasoning, if you find you lack some knowledge, you can call a search engine by <search> query </search> and it will return the top searched results between <information> and </information>. " +
  "You can search as many times as your want. " +
  "If you find no further external knowledge needed, you can directly provide the answer inside <answer> and </answer>, without detailed illustrations. For example, <answer> Beijing </answer>. Question: ";

/** The system message of `hermes-qa`. The tools themselves come from the chat template (gateway catalog). */
export const HERMES_QA_SYSTEM =
  "You are a helpful assistant that answers questions. Use the provided tools whenever you need " +
  "information you do not have; you may call them as many times as you need. When you have the " +
  "answer, give it inside <answer> and </answer>, as short as possible (a name, a date, a number, " +
  "yes or no), without explanations. For example, <answer> Beijing </answer>.";

/**
 * The question as Search-R1's preprocessing leaves it: stripped, with "?" appended when it does not
 * end with one (`nq_search.py` `process_fn`).
 */
export function searchR1Question(question: string): string {
  const q = question.trim();
  if (q === "") throw new Error("empty question");
  return q.endsWith("?") ? q : `${q}?`;
}

/** Search-R1's single user message for a question. */
export function searchR1Prompt(question: string): string {
  return `${SEARCH_R1_INSTRUCTION}${searchR1Question(question)}\n`;
}

/**
 * The chat messages of a template for a question. `system` replaces the template's system message
 * (`hermes-qa`) or is put before the user message (`search-r1`, which has none of its own).
 */
export function renderPromptTemplate(
  template: Exclude<PromptTemplateName, "none">,
  question: string,
  options: { system?: string | undefined } = {},
): ChatMessage[] {
  if (template === "search-r1") {
    const user: ChatMessage = { role: "user", content: searchR1Prompt(question) };
    return options.system === undefined ? [user] : [{ role: "system", content: options.system }, user];
  }
  const q = question.trim();
  if (q === "") throw new Error("empty question");
  return [
    { role: "system", content: options.system ?? HERMES_QA_SYSTEM },
    { role: "user", content: q },
  ];
}

/** A row's own prompt with `system` put in: it replaces a leading system message, or is prepended. */
export function withSystemMessage(prompt: readonly ChatMessage[], system: string | undefined): ChatMessage[] {
  if (system === undefined) return [...prompt];
  const rest = prompt[0]?.role === "system" ? prompt.slice(1) : prompt;
  return [{ role: "system", content: system }, ...rest];
}

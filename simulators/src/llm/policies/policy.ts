// The contract of a scripted policy: it reads the conversation (decoded prompt) and writes the text of
// the next model turn. The server turns that text into token ids with the real tokenizer and applies the
// engine's stop / max_tokens / EOS rules; a policy never sees ids.
import { z } from "zod";
import type { Conversation } from "../conversation.ts";
import { replayTaskSchema } from "./replay-tasks.ts";
import { solveTaskSchema } from "./solve-tasks.ts";

export const policyOptionsSchema = z.object({
  /** Tool the Hermes-format policies call (`server__tool`). */
  tool: z.string().min(1).default("search__search"),
  /** `research`: the tool it summarises the passages with (`{"text": …}`); absent: it quotes the top passage. */
  summarise: z.string().min(1).optional(),
  /** `parallel-calls`: tool calls per turn. */
  calls: z.int().min(1).max(64).default(2),
  /** `parallel-calls`: turns with calls before the answer (0: answer on the first turn). */
  turns: z.int().min(0).max(10_000).default(2),
  /** Start every turn with a short `<think>…</think>\n\n` block. */
  think: z.boolean().default(false),
  /** `replay`: the tasks whose ground truth it plays back (`--tasks FILE`, read by `loadReplayTasks`). */
  tasks: z.array(replayTaskSchema).optional(),
  /** `solve`: the FTRL-style tasks it solves (`--tasks FILE`, read by `loadSolveTasks`). */
  solveTasks: z.array(solveTaskSchema).optional(),
});
export type PolicyOptions = z.output<typeof policyOptionsSchema>;
export type PolicyOptionsInput = z.input<typeof policyOptionsSchema>;

export interface PolicyContext {
  conversation: Conversation;
  options: PolicyOptions;
  /** Draws for this request: the same request with the same seed gives the same draws. */
  random: () => number;
  /** Sampling temperature, 0 when decoding is greedy (temperature 0 or top_k 1). */
  temperature: number;
  /** The request's token cap (policies that never stop write past it). */
  maxTokens: number;
}

export interface PolicyTurn {
  text: string;
  /** True: the turn ends normally (the server appends the EOS token). False: the model keeps writing. */
  ends: boolean;
}

export interface Policy {
  readonly name: string;
  /** One line for `--help` and the README. */
  readonly summary: string;
  respond(ctx: PolicyContext): PolicyTurn;
}

// `ftrl_solve`: FTRL's per-turn "solve" reward (Ye et al., "Feedback-Driven Tool-Use Improvements in
// Large Language Models via Automated Build Environments", arXiv 2508.08791). The paper scores every
// sampled turn on its last token; this component computes that value for each sampled turn of the
// trajectory (reported in `turn_rewards`) and a scalar for `reward` (their mean, or sum).
//
// The definition (per sampled turn). Let n = the tool calls the turn made and s = those calls whose
// output contains a still-unsolved sub-answer registered for the called tool; each sub-answer counts
// once, then it is solved (for the later calls of the turn and every later turn). With P = s/n and
// R = s:
//   variant p  = P = s/n          variant r  = R = s
//   variant pr = P·R = s²/n       variant f1 = 2PR/(P+R) = 2s/(n+1)   (the default)
// A turn without a tool call scores, in this order:
//   empty text                                   → −0.5
//   stray tool-call tags                         → −0.3
//   contains the final answer                    → 1/(1 + #unsolved sub-answers)
//   every sub-answer already solved, no answer   → 0.5
//   otherwise                                    → 0
//
// What the definition leaves open, settled as the authors' reference implementation does it:
// - Task data: `ground_truth` is the final answer (a string); `extra_info.unsolved_set` maps a tool name
//   as the model calls it (the alias, `tool_calls[].name`) to its sub-answers (strings).
// - A call "contains" a sub-answer when every item of it is in the call's output: the sub-answer is
//   split on ", " (comma + space, so "1,000" stays one item), and each item, lowercased with its commas
//   removed and trimmed, must be a substring of the output lowercased with its commas removed. A call
//   solves at most one sub-answer: the first unsolved one of its tool, in the registered order, that it
//   contains. A call to a tool with no registered sub-answer counts in n and never in s.
// - n counts the calls that parsed: `tool_calls` entries of the turn except the format's malformed
//   ones (`error_code` MALFORMED_…), which the reference drops before counting. Calls that parsed but
//   failed as the model's doing (unknown or not offered tool, invalid arguments, the tool's own error)
//   count in n; their output is the error text. A call the infrastructure failed (TIMEOUT,
//   UNAVAILABLE, ...) has no real output: the reward is null with that code (never a lower s).
// - A turn "without a tool call" is one with no parsed call: no call at all, only malformed ones, or
//   calls the rollout never ran (an `<answer>` turn's calls, the last turn at `max_turns`).
// - Empty: the turn's decoded text is blank after trimming.
// - Stray tool-call tags: the text holds `<tool_call>`, `</tool_call>` or `<tool_parsed_response>` (the
//   reference's three), or the turn has a malformed call (any format's call markup that did not parse).
//   The no-action nudge entry (`MALFORMED_UNKNOWN_ACTION`) is not a stray tag.
// - Contains the final answer: the ground truth, lowercased, commas removed, trimmed, is a substring of
//   the turn's whole text likewise normalised (the reference reads the whole reply, not an `<answer>`
//   tag). A blank ground truth never matches. #unsolved is the count of sub-answers still unsolved.
// - "Every sub-question already solved" holds vacuously for a task that registers none.
// - The scalar: the reference trains on one sample per turn (GRPO over samples that share the history),
//   so its reward is exactly the per-turn value. Here a trajectory holds all its turns: the per-turn
//   values go to `turn_rewards` (× weight, on the turn's entry; a trainer puts it on the turn's last
//   token), and the component's value is their `mean` over the sampled turns (default) or `sum`.

import type { Trajectory } from "@rlfactory/contracts";
import {
  INFRA_CALL_CODES,
  MALFORMED_CODE_PREFIX,
  NO_ACTION_CODE,
  serviceCallCode,
} from "@rlfactory/contracts";
import { z } from "zod";
import { RewardConfigError, RewardInfraError } from "./errors.ts";
import {
  componentBaseShape,
  componentName,
  defineRewardComponent,
  type RewardComponent,
  type RewardInput,
} from "./types.ts";

export const FTRL_VARIANTS = ["f1", "p", "r", "pr"] as const;
export type FtrlVariant = (typeof FTRL_VARIANTS)[number];

export const ftrlSolveSchema = z.strictObject({
  type: z.literal("ftrl_solve"),
  ...componentBaseShape,
  /** Which per-turn value a turn with tool calls gets: f1 = 2s/(n+1), p = s/n, r = s, pr = s²/n. */
  variant: z.enum(FTRL_VARIANTS).default("f1"),
  /** The component's value from the per-turn values: their mean over the sampled turns, or their sum. */
  aggregate: z.enum(["mean", "sum"]).default("mean"),
});
export type FtrlSolveConfig = z.infer<typeof ftrlSolveSchema>;

/** `extra_info.unsolved_set`: tool name as the model calls it → its sub-answers. */
export const unsolvedSetSchema = z.record(z.string(), z.array(z.string()));

/** The text the reference treats as tool-call markup when no call parsed. */
export const STRAY_TOOL_CALL_TAGS: readonly string[] = [
  "<tool_call>",
  "</tool_call>",
  "<tool_parsed_response>",
];

/** Lowercase, commas removed, trimmed: how both a sub-answer's items and the final answer are compared. */
function normalise(text: string): string {
  return text.toLowerCase().replaceAll(",", "").trim();
}

/** Whether `output` contains every ", "-separated item of `subAnswer` (normalised). */
export function containsSubAnswer(output: string, subAnswer: string): boolean {
  const haystack = normalise(output);
  return subAnswer.split(", ").every((item) => haystack.includes(normalise(item)));
}

/** The per-turn value of a turn with n ≥ 1 parsed calls of which s solved a sub-answer. */
export function solveValue(variant: FtrlVariant, s: number, n: number): number {
  switch (variant) {
    case "f1":
      return (2 * s) / (n + 1);
    case "p":
      return s / n;
    case "r":
      return s;
    case "pr":
      return (s * s) / n;
  }
}

/** The branch a turn took, for details and tests. */
export type FtrlTurnBranch = "calls" | "empty" | "stray_tags" | "final_answer" | "all_solved" | "none";

export interface FtrlTurnScore {
  /** Index into `trajectory.turns`. */
  turn: number;
  branch: FtrlTurnBranch;
  value: number;
  /** Parsed calls (n) and those that solved a sub-answer (s); 0 without calls. */
  n: number;
  s: number;
  /** Sub-answers still unsolved after the turn. */
  unsolved: number;
}

interface FtrlTaskData {
  answer: string;
  unsolved: Map<string, string[]>;
}

function taskData(component: string, input: RewardInput): FtrlTaskData {
  const { task } = input;
  if (typeof task.ground_truth !== "string") {
    throw new RewardConfigError(
      component,
      "BAD_GROUND_TRUTH",
      `task ${task.id}: ftrl_solve needs ground_truth to be the final answer as a string, got ${
        task.ground_truth === undefined ? "none" : JSON.stringify(task.ground_truth).slice(0, 80)
      }`,
    );
  }
  const raw = task.extra_info.unsolved_set;
  const parsed = unsolvedSetSchema.safeParse(raw);
  if (raw === undefined || !parsed.success) {
    throw new RewardConfigError(
      component,
      raw === undefined ? "NO_UNSOLVED_SET" : "BAD_UNSOLVED_SET",
      raw === undefined
        ? `task ${task.id}: ftrl_solve needs extra_info.unsolved_set ({tool name: [sub-answers]})`
        : `task ${task.id}: extra_info.unsolved_set must map tool names to lists of strings: ${z.prettifyError(parsed.error!)}`,
    );
  }
  return {
    answer: task.ground_truth,
    unsolved: new Map(Object.entries(parsed.data).map(([tool, answers]) => [tool, [...answers]])),
  };
}

function callsByTurn(component: string, trajectory: Trajectory): Map<number, Trajectory["tool_calls"]> {
  const byTurn = new Map<number, Trajectory["tool_calls"]>();
  for (const [i, call] of trajectory.tool_calls.entries()) {
    if (call.turn === undefined || trajectory.turns[call.turn]?.kind !== "sampled") {
      throw new RewardConfigError(
        component,
        "TURN_UNKNOWN",
        `tool_calls[${i}] (${call.name || "malformed"}) does not name the sampled turn that made it`,
      );
    }
    const list = byTurn.get(call.turn) ?? [];
    list.push(call);
    byTurn.set(call.turn, list);
  }
  return byTurn;
}

/**
 * Every sampled turn's value, in order. Throws RewardConfigError on task data it cannot read or turns
 * it cannot align, RewardInfraError when a counted call failed for the infrastructure.
 */
export function ftrlTurnScores(
  input: RewardInput,
  variant: FtrlVariant,
  component = "ftrl_solve",
): FtrlTurnScore[] {
  const { trajectory, sampledTexts } = input;
  const { answer, unsolved } = taskData(component, input);
  const sampled = trajectory.turns.flatMap((t, i) => (t.kind === "sampled" ? [i] : []));
  if (sampled.length !== sampledTexts.length) {
    throw new RewardConfigError(
      component,
      "TURNS_MISALIGNED",
      `${sampled.length} sampled turns but ${sampledTexts.length} sampled texts`,
    );
  }
  const byTurn = callsByTurn(component, trajectory);
  const wantedAnswer = normalise(answer);
  const unsolvedCount = () => [...unsolved.values()].reduce((sum, list) => sum + list.length, 0);

  return sampled.map((turn, k) => {
    const text = sampledTexts[k]!;
    const entries = byTurn.get(turn) ?? [];
    const calls = entries.filter((c) => !(c.error_code ?? "").startsWith(MALFORMED_CODE_PREFIX));
    if (calls.length > 0) {
      let s = 0;
      for (const call of calls) {
        const code = call.error_code?.toUpperCase();
        if (code !== undefined && INFRA_CALL_CODES.has(code)) {
          throw new RewardInfraError(
            component,
            serviceCallCode(code),
            `the call to ${call.name} in turn ${turn} failed for the infrastructure (${code}): its output is unknown`,
          );
        }
        const open = unsolved.get(call.name);
        const hit = open?.findIndex((subAnswer) => containsSubAnswer(call.result, subAnswer)) ?? -1;
        if (hit >= 0) {
          open!.splice(hit, 1);
          s += 1;
        }
      }
      const n = calls.length;
      return { turn, branch: "calls", value: solveValue(variant, s, n), n, s, unsolved: unsolvedCount() };
    }
    const left = unsolvedCount();
    const judged = (branch: FtrlTurnBranch, value: number): FtrlTurnScore => ({
      turn,
      branch,
      value,
      n: 0,
      s: 0,
      unsolved: left,
    });
    if (text.trim() === "") return judged("empty", -0.5);
    const strayMalformed = entries.some((c) => c.error_code !== NO_ACTION_CODE);
    if (strayMalformed || STRAY_TOOL_CALL_TAGS.some((tag) => text.includes(tag))) {
      return judged("stray_tags", -0.3);
    }
    if (wantedAnswer !== "" && normalise(text).includes(wantedAnswer)) {
      return judged("final_answer", 1 / (1 + left));
    }
    if (left === 0) return judged("all_solved", 0.5);
    return judged("none", 0);
  });
}

const show = (v: number) => String(Math.round(v * 1000) / 1000);

export function createFtrlSolve(config: FtrlSolveConfig): RewardComponent {
  const name = componentName(config);
  return {
    name,
    weight: config.weight,
    score: (input) => {
      const scores = ftrlTurnScores(input, config.variant, name);
      const turnValues = input.trajectory.turns.map(() => 0);
      for (const s of scores) turnValues[s.turn] = s.value;
      const sum = scores.reduce((acc, s) => acc + s.value, 0);
      const value = config.aggregate === "sum" ? sum : scores.length === 0 ? 0 : sum / scores.length;
      const left = scores.at(-1)?.unsolved;
      const detail =
        scores.length === 0
          ? "no sampled turns"
          : `${config.variant} per sampled turn: ${scores.map((s) => show(s.value)).join(", ")} (${config.aggregate} ${show(value)}); ${left} sub-answers unsolved`;
      return { value, detail, turnValues };
    },
  };
}

export const ftrlSolveComponent = defineRewardComponent({
  schema: ftrlSolveSchema,
  // r and pr grow with the calls of a turn, and `sum` with the turns
  range: [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY],
  create: createFtrlSolve,
});

// `ftrl_solve` against a table of hand-computed turns: one 15-turn trajectory that walks every branch
// of FTRL's per-turn reward (a multi-call turn under each variant, a sub-answer counted once then
// solved, case-insensitive and comma-split matching, a tool with no sub-answer, empty turns, stray
// tags from the text and from a malformed call, the final answer with k unsolved, all solved, else 0),
// then the composed reward (the value, `turn_rewards` with weights and process rewards) and the task
// data and infrastructure failures that make the reward null.
import { qaTask, rewardInput, type TurnSpec, trajectoryWith } from "@rlfactory/test-support/reward-fixtures";
import { describe, expect, it } from "vitest";
import { ftrlSolveSchema, ftrlTurnScores } from "./ftrl-solve.ts";
import { applyRewardResult, createRewardFn, parseRewardConfig } from "./reward-config.ts";
import type { RewardInput } from "./types.ts";

type Call = { name: string; result: string; error_code: string | null; is_error: boolean };
const call = (name: string, result: string): Call => ({ name, result, error_code: null, is_error: false });
const refused = (name: string, code: string, result: string): Call => ({
  name,
  result,
  error_code: code,
  is_error: true,
});
const malformed = (code: string): Call => refused("", `MALFORMED_${code}`, `Error [${code}]`);

const FINAL_ANSWER = "Paris, France";
/** 4 sub-answers; `weather` has none. */
const UNSOLVED_SET = {
  lookup: ["Eiffel Tower, 1889", "Seine"],
  geo: ["48.8566"],
  convert: ["330 m"],
};

interface Row {
  why: string;
  text: string;
  calls?: Call[];
  /** The value under f1 (and every variant when the turn has no parsed call). */
  f1: number;
  p?: number;
  r?: number;
  pr?: number;
  /** Sub-answers still unsolved after the turn. */
  unsolved: number;
}

// Worked by hand from the definition: f1 = 2s/(n+1), p = s/n, r = s, pr = s²/n; a turn without a call:
// empty −0.5, stray tags −0.3, final answer 1/(1+#unsolved), all solved 0.5, else 0.
const TABLE: Row[] = [
  { why: "empty text", text: "", f1: -0.5, unsolved: 4 },
  {
    why: "a malformed call (no tags in this format): stray",
    text: '{"name": "lookup", "parameters": {',
    calls: [malformed("INVALID_JSON")],
    f1: -0.3,
    unsolved: 4,
  },
  { why: "a stray closing tag in the text", text: "I will call lookup </tool_call>", f1: -0.3, unsolved: 4 },
  {
    why: "no call, no answer, sub-answers left",
    text: "Let me think about the capital.",
    f1: 0,
    unsolved: 4,
  },
  {
    why: "3 calls: one item of 2 (no), both items in another order and case (yes), a tool without sub-answers",
    text: "<tool_call>…</tool_call> ×3",
    calls: [
      call("lookup", "The Eiffel Tower is tall."),
      call("lookup", "Built for the Exposition of 1889, the EIFFEL TOWER stands in Paris."),
      call("weather", "Sunny in Paris, 1889 style"),
    ],
    f1: 2 / 4,
    p: 1 / 3,
    r: 1,
    pr: 1 / 3,
    unsolved: 3,
  },
  {
    why: "a solved sub-answer counts once",
    text: "<tool_call>…</tool_call>",
    calls: [call("lookup", "The Eiffel Tower opened in 1889.")],
    f1: 0,
    p: 0,
    r: 0,
    pr: 0,
    unsolved: 3,
  },
  {
    why: "the final answer (case and commas aside) with 3 unsolved",
    text: "I believe it is PARIS, france.",
    f1: 1 / 4,
    unsolved: 3,
  },
  {
    why: "3 parsed calls + a malformed one: Seine solved by the first only, geo solved",
    text: "<tool_call>…</tool_call> ×4",
    calls: [
      call("lookup", "River SEINE"),
      call("lookup", "the Seine again"),
      malformed("MISSING_NAME"),
      call("geo", "lat 48.8566, lon 2.3522"),
    ],
    f1: (2 * 2) / 4,
    p: 2 / 3,
    r: 2,
    pr: 4 / 3,
    unsolved: 1,
  },
  {
    why: "a call refused as the model's mistake counts in n; its error text solves nothing",
    text: "<tool_call>…</tool_call>",
    calls: [refused("convert", "TOOL_NOT_OFFERED", "convert is not offered in this turn")],
    f1: 0,
    p: 0,
    r: 0,
    pr: 0,
    unsolved: 1,
  },
  {
    why: "the last sub-answer, case-insensitive",
    text: "<tool_call>…</tool_call>",
    calls: [call("convert", "330 M tall")],
    f1: 1,
    p: 1,
    r: 1,
    pr: 1,
    unsolved: 0,
  },
  { why: "every sub-answer solved, no final answer", text: "Everything is checked.", f1: 0.5, unsolved: 0 },
  {
    why: "the no-action nudge entry is not a stray tag",
    text: "hmm",
    calls: [malformed("UNKNOWN_ACTION")],
    f1: 0.5,
    unsolved: 0,
  },
  { why: "blank text is empty", text: "  \n ", f1: -0.5, unsolved: 0 },
  {
    why: "tags beside the answer (calls the rollout never ran): stray before the answer",
    text: '<tool_call>\n{"name": "geo", "arguments": {}}\n</tool_call>\n<answer>Paris, France</answer>',
    f1: -0.3,
    unsolved: 0,
  },
  {
    why: "the final answer with nothing unsolved",
    text: "<think>ok</think>\nParis, France.",
    f1: 1,
    unsolved: 0,
  },
];

function inputOf(rows: Row[], task = qaTask(FINAL_ANSWER, { unsolved_set: UNSOLVED_SET })): RewardInput {
  const turns: TurnSpec[] = rows.flatMap((row, i) => {
    const sampled: TurnSpec = { kind: "sampled", calls: row.calls ?? [] };
    return i < rows.length - 1 ? [sampled, { kind: "observation" }] : [sampled];
  });
  return rewardInput({
    task,
    trajectory: trajectoryWith(turns),
    sampledTexts: rows.map((r) => r.text),
    answer: "Paris, France",
  });
}

const round = (v: number) => Math.round(v * 1e9) / 1e9;

describe("ftrl_solve on the hand-computed table", () => {
  it("covers every branch of the definition in at least 12 turns", () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(12);
    const branches = new Set(ftrlTurnScores(inputOf(TABLE), "f1").map((s) => s.branch));
    expect([...branches].sort()).toEqual(
      ["all_solved", "calls", "empty", "final_answer", "none", "stray_tags"].sort(),
    );
  });

  for (const variant of ["f1", "p", "r", "pr"] as const) {
    it(`variant ${variant}: every turn's value, and the sub-answers left after it`, () => {
      const scores = ftrlTurnScores(inputOf(TABLE), variant);
      expect(scores.map((s) => s.turn)).toEqual(TABLE.map((_, k) => 2 * k));
      const got = scores.map((s, k) => [TABLE[k]!.why, round(s.value), s.unsolved]);
      const want = TABLE.map((row) => [row.why, round(row[variant] ?? row.f1), row.unsolved]);
      expect(got).toEqual(want);
    });
  }

  it("counts n and s per multi-call turn (malformed entries out of n)", () => {
    const scores = ftrlTurnScores(inputOf(TABLE), "f1");
    expect(scores.filter((s) => s.branch === "calls").map((s) => [s.n, s.s])).toEqual([
      [3, 1],
      [1, 0],
      [3, 2],
      [1, 0],
      [1, 1],
    ]);
  });
});

describe("ftrl_solve composed with the other components", () => {
  // hand sums of the table: f1 2.85; p 2.35 (the turns without calls 0.35 + the calls 1/3 + 0 + 2/3 + 0 + 1)
  const F1_SUM = 2.85;
  const P_SUM = 0.35 + 1 / 3 + 2 / 3 + 1;

  it("is the mean of the per-turn values (default) or their sum, and writes weight × value per turn", async () => {
    const input = inputOf(TABLE);
    const fn = createRewardFn({
      components: [
        { type: "ftrl_solve", weight: 2 },
        { type: "ftrl_solve", name: "solve_p_sum", variant: "p", aggregate: "sum", weight: 0 },
        { type: "exact_match", weight: 0 },
      ],
    });
    const result = await fn.score(input, { tools: { call: async () => Promise.reject(new Error("no")) } });
    expect(result.error).toBeNull();
    expect(round(result.components.ftrl_solve!)).toBe(round(F1_SUM / TABLE.length));
    expect(round(result.components.solve_p_sum!)).toBe(round(P_SUM));
    expect(result.components.exact_match).toBe(1); // weight 0: reported beside it
    expect(round(result.reward!)).toBe(round((2 * F1_SUM) / TABLE.length));
    // one entry per turn: 2 × the f1 value on sampled turns (the p one weighs 0), 0 on observations
    const want = TABLE.flatMap((row, k) => (k < TABLE.length - 1 ? [2 * row.f1, 0] : [2 * row.f1]));
    expect(result.turnRewards?.map(round)).toEqual(want.map(round));
    const trajectory = applyRewardResult(input.trajectory, result);
    expect(trajectory.turn_rewards).toHaveLength(trajectory.turns.length);
    expect(result.details.ftrl_solve).toMatch(
      /^f1 per sampled turn: -0\.5, -0\.3, -0\.3, 0, 0\.5, .* \(mean 0\.19\); 0 sub-answers unsolved$/,
    );
  });

  it("adds its per-turn values to the process rewards", async () => {
    const rows = TABLE.slice(4, 6); // 3 calls (f1 0.5), then 1 call (f1 0)
    const fn = createRewardFn({
      components: [{ type: "ftrl_solve", weight: 1 }],
      process: { tool_success: 0.01 },
    });
    const result = await fn.score(inputOf(rows), {
      tools: { call: async () => Promise.reject(new Error("no")) },
    });
    expect(result.turnRewards?.map(round)).toEqual([0.53, 0, 0.01]);
  });

  it("parses variant and aggregate, refusing others by name", () => {
    expect(ftrlSolveSchema.parse({ type: "ftrl_solve" })).toMatchObject({ variant: "f1", aggregate: "mean" });
    expect(() => parseRewardConfig([{ type: "ftrl_solve", variant: "f2" }])).toThrow(/variant/);
    expect(() => parseRewardConfig([{ type: "ftrl_solve", aggregate: "max" }])).toThrow(/aggregate/);
  });
});

describe("ftrl_solve failures: a null reward with a reward_error, never a 0", () => {
  const tools = { call: async () => Promise.reject(new Error("no")) };
  const rows = TABLE.slice(4, 7);

  it.each([
    ["no unsolved_set", qaTask(FINAL_ANSWER), "NO_UNSOLVED_SET"],
    [
      "an unsolved_set of numbers",
      qaTask(FINAL_ANSWER, { unsolved_set: { lookup: [1889] } }),
      "BAD_UNSOLVED_SET",
    ],
    ["a list as ground truth", qaTask([FINAL_ANSWER], { unsolved_set: UNSOLVED_SET }), "BAD_GROUND_TRUTH"],
  ])("%s → %s", async (_, task, code) => {
    const result = await createRewardFn([{ type: "ftrl_solve" }]).score(inputOf(rows, task), { tools });
    expect(result.reward).toBeNull();
    expect(result.error).toMatchObject({ component: "ftrl_solve", code });
    expect(result.turnRewards).toBeUndefined();
  });

  it("a counted call the infrastructure failed (TIMEOUT) is an infrastructure error", async () => {
    const input = inputOf([{ ...TABLE[5]!, calls: [refused("lookup", "TIMEOUT", "deadline exceeded")] }]);
    const result = await createRewardFn([{ type: "ftrl_solve" }]).score(input, { tools });
    expect(result.reward).toBeNull();
    expect(result.error).toMatchObject({ component: "ftrl_solve", code: "TIMEOUT" });
  });

  it("texts that do not match the sampled turns are refused", async () => {
    const input = { ...inputOf(rows), sampledTexts: ["only one"] };
    const result = await createRewardFn([{ type: "ftrl_solve" }]).score(input, { tools });
    expect(result.error).toMatchObject({ code: "TURNS_MISALIGNED" });
  });
});

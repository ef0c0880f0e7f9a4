// The reward config (parsing, defaults, errors) and the composed reward: weights, weight-0 reporting,
// process rewards, and failures that null the reward instead of scoring 0.
import { readFileSync } from "node:fs";
import { failed, ok, qaTask, rewardInput, trajectoryWith } from "@rlfactory/test-support/reward-fixtures";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { applyRewardResult, createRewardFn, parseRewardConfig } from "./reward-config.ts";
import type { RewardContext } from "./types.ts";

const ctx: RewardContext = {
  tools: {
    call: () => Promise.reject(new Error("invoker broke its contract")),
  },
};

describe("reward config", () => {
  it("normalises a bare list and an object the same way, with every default filled", () => {
    const list = parseRewardConfig([{ type: "exact_match" }, { type: "tool_call_penalty", weight: 1 }]);
    expect(list).toEqual({
      components: [
        { type: "exact_match", weight: 1 },
        { type: "tool_call_penalty", weight: 1, max_calls: 2, penalty: 0.1, mode: "flat" },
      ],
    });
    const object = parseRewardConfig({
      components: [{ type: "exact_match" }, { type: "tool_call_penalty" }],
    });
    expect(object).toEqual(list);
    expect(
      parseRewardConfig({
        components: [{ type: "tool_verified", tool: "sql__verify", arguments: { q: "{{answer}}" } }],
        process: { tool_error: -0.1 },
      }),
    ).toEqual({
      components: [
        {
          type: "tool_verified",
          weight: 1,
          tool: "sql__verify",
          arguments: { q: "{{answer}}" },
          score_path: "match",
          deadline_ms: 30_000,
          on_tool_error: "zero",
        },
      ],
      process: { tool_success: 0, tool_error: -0.1, tool_infra_failure: 0, malformed: 0 },
    });
  });

  it("parses the YAML examples of the README", () => {
    const readme = readFileSync(new URL("./README.md", import.meta.url), "utf8");
    const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const names = blocks.map(
      (yaml) => createRewardFn((parseYaml(yaml) as { reward: unknown }).reward as never).names,
    );
    expect(names).toContainEqual(["exact_match", "f1", "format", "tool_call_penalty", "sql_match"]);
    expect(names).toContainEqual(["state_match", "expected_state", "tool_precision"]);
  });

  it.each([
    [[], "at least one reward component"],
    [[{ type: "bleu" }], "components[0].type"],
    [[{ type: "exact_match", wieght: 1 }], 'Unrecognized key: "wieght"'],
    [
      [{ type: "exact_match" }, { type: "exact_match", weight: 0 }],
      'component name "exact_match" is used twice',
    ],
    [[{ type: "f1", name: "f 1" }], "use letters, digits"],
    [
      [{ type: "tool_verified", tool: "sql__verify", arguments: { q: "{{trajectory.x}}" } }],
      "must start with one of answer",
    ],
    [[{ type: "tool_verified", tool: "t", arguments: {}, score_path: "a/b/c" }], 'a dot path ("match")'],
    [[{ type: "judge", deadline_ms: 0 }], "deadline_ms"],
    [{ components: [{ type: "format" }], proces: {} }, 'Unrecognized key: "proces"'],
  ])("rejects %j", (raw, message) => {
    expect(() => parseRewardConfig(raw)).toThrow(message);
  });
});

describe("createRewardFn", () => {
  const config = [
    { type: "f1", weight: 1 },
    { type: "exact_match", weight: 0 },
    { type: "format", weight: 0.1 },
    { type: "tool_call_penalty", weight: 2, max_calls: 1, penalty: 0.1, mode: "per_call" },
  ] as const;

  it("total = Σ weight × value; components are unweighted; weight 0 is reported", async () => {
    const trajectory = trajectoryWith([
      { kind: "sampled", calls: [ok(), ok(), ok()] },
      { kind: "observation" },
      { kind: "sampled" },
    ]);
    const out = await createRewardFn([...config]).score(
      rewardInput({ trajectory, answer: "Shakespeare", sampledTexts: ["a", "b"] }),
      ctx,
    );
    // f1 "shakespeare" vs "william shakespeare" = 2/3; EM 0; format 1; penalty −0.1 × 2 extra calls
    expect(out.components.f1).toBeCloseTo(2 / 3, 12);
    expect(out.components).toMatchObject({ exact_match: 0, format: 1 });
    expect(out.components.tool_call_penalty).toBeCloseTo(-0.2, 12);
    expect(out.reward).toBeCloseTo(2 / 3 + 0.1 - 0.4, 12);
    expect(out.error).toBeNull();
    expect(out.details).toEqual({ tool_call_penalty: "3 tool calls, 1 allowed" });
    expect(out.turnRewards).toBeUndefined();
  });

  it("a missing answer is a genuine 0, not an error", async () => {
    const out = await createRewardFn([...config]).score(rewardInput({ answer: null }), ctx);
    expect(out).toMatchObject({
      reward: 0,
      error: null,
      components: { f1: 0, exact_match: 0, format: 0, tool_call_penalty: 0 },
    });
  });

  it("adds per-turn process rewards aligned with the turns", async () => {
    const trajectory = trajectoryWith([
      { kind: "sampled", calls: [ok(), failed("tool_error")] },
      { kind: "observation" },
      { kind: "sampled" },
    ]);
    const fn = createRewardFn({
      components: [{ type: "format" }],
      process: { tool_error: -0.1, tool_success: 0.02 },
    });
    const out = await fn.score(rewardInput({ trajectory, sampledTexts: ["a", "b"] }), ctx);
    expect(out.reward).toBe(1);
    expect(out.turnRewards?.map((r) => Math.round(r * 1e9) / 1e9)).toEqual([-0.08, 0, 0]);
  });

  it("any failure nulls the reward, names the component, and keeps the others' values", async () => {
    const fn = createRewardFn([
      { type: "exact_match" },
      { type: "tool_verified", tool: "sql__verify", arguments: { predicted_sql: "{{answer}}" } },
      { type: "judge", weight: 0.5 },
    ]);
    const out = await fn.score(rewardInput({ answer: "William Shakespeare" }), ctx);
    expect(out.reward).toBeNull();
    expect(out.components).toEqual({ exact_match: 1 });
    expect(out.error).toEqual({
      component: "tool_verified",
      code: "INTERNAL",
      message: "unexpected error: invoker broke its contract (also failed: judge NO_JUDGE)",
    });
  });

  it("a process-reward failure also nulls the reward", async () => {
    const fn = createRewardFn({ components: [{ type: "format" }], process: { malformed: -0.1 } });
    const out = await fn.score(rewardInput({ malformedTurns: 1 }), ctx);
    expect(out).toMatchObject({
      reward: null,
      components: { format: 0 },
      error: { component: "process", code: "MALFORMED_TURNS_UNKNOWN" },
    });
  });

  it("applyRewardResult writes the reward fields into a valid trajectory record", async () => {
    const input = rewardInput({ task: qaTask(["Shakespeare"]) });
    const fn = createRewardFn({ components: [{ type: "exact_match" }], process: { tool_success: 0.1 } });
    const scored = applyRewardResult(input.trajectory, await fn.score(input, ctx));
    expect(scored).toMatchObject({
      reward: 1,
      reward_components: { exact_match: 1 },
      reward_error: null,
      turn_rewards: [0],
    });
    expect(input.trajectory.reward).toBeNull(); // the input record is untouched
  });
});

// The contract every registered reward component keeps, run over every entry of the registry
// (`describe.each(REWARD_COMPONENT_TYPES)`): a minimal entry parses with its defaults (`weight` 1, the
// name defaulting to the type); an unknown key is refused; the component scores every input in every
// context either as a finite value in its declared range or by throwing a typed RewardScoringError
// naming the component (never another error, never a NaN); and the composed reward reports it under its
// name. `CASES` is typed by the registry's types, so a component added there without its case here fails
// the typecheck.
import { failed, ok, qaTask, rewardInput, trajectoryWith } from "@rlfactory/test-support/reward-fixtures";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type { ToolCallOutcome, ToolInvoker } from "../gateway-tools.ts";
import { stateDigest } from "../rollout/state-diff.ts";
import { isRewardScoringError } from "./errors.ts";
import {
  REWARD_COMPONENT_TYPES,
  type RewardComponentType,
  rewardComponentSchema,
  rewardComponents,
} from "./reward-components.ts";
import { createRewardFn, parseRewardConfig } from "./reward-config.ts";
import type { Judge, RewardContext, RewardInput } from "./types.ts";

/** A minimal valid entry of each component (its required parameters only). */
type ComponentEntry = z.input<typeof rewardComponentSchema>;
const CASES: { readonly [T in RewardComponentType]: Extract<ComponentEntry, { type: T }> } = {
  exact_match: { type: "exact_match" },
  f1: { type: "f1" },
  string_check: { type: "string_check", operation: "icontains" },
  text_similarity: { type: "text_similarity", metric: "rouge_l" },
  multi: {
    type: "multi",
    graders: { em: { type: "exact_match" }, sim: { type: "text_similarity", metric: "fuzzy_match" } },
    calculate_output: "0.5 * em + 0.5 * sim",
  },
  format: { type: "format" },
  tool_call_penalty: { type: "tool_call_penalty", mode: "per_call" },
  tool_verified: { type: "tool_verified", tool: "sql__verify", arguments: { predicted: "{{answer}}" } },
  judge: { type: "judge" },
  tool_precision: { type: "tool_precision" },
  state_match: { type: "state_match", checks: [{ path: "$.a", equals: "1" }] },
  bfcl_state: { type: "bfcl_state" },
  task_completion: { type: "task_completion" },
  ftrl_solve: { type: "ftrl_solve" },
  bfcl_response: { type: "bfcl_response" },
  db_state: { type: "db_state" },
  env_reward: { type: "env_reward" },
};

/** Finished rollouts of every shape a component meets. */
const INPUTS: [string, RewardInput][] = [
  ["a right answer", rewardInput()],
  ["a wrong answer", rewardInput({ answer: "Christopher Marlowe" })],
  ["no answer", rewardInput({ answer: null, sampledTexts: ["I do not know"] })],
  ["a blank answer", rewardInput({ answer: "  " })],
  [
    "many tool calls, some failed",
    rewardInput({
      trajectory: trajectoryWith([
        { kind: "sampled", calls: [ok(), ok(), failed("TIMEOUT"), ok(), failed("UNAVAILABLE")] },
        { kind: "observation" },
        { kind: "sampled" },
      ]),
      sampledTexts: ["<tool_call>…</tool_call>", "<answer>Shakespeare</answer>"],
    }),
  ],
  [
    "a truncated rollout with malformed turns",
    rewardInput({
      trajectory: trajectoryWith([{ kind: "sampled" }, { kind: "sampled" }], "truncated"),
      malformedTurns: 2,
      answer: null,
    }),
  ],
  ["a task without gold answers", rewardInput({ task: qaTask([]) })],
  [
    "a task with a final answer and sub-answers per tool (FTRL)",
    rewardInput({
      task: qaTask("Shakespeare", { unsolved_set: { search__search: ["Hamlet, 1603"] } }),
      trajectory: trajectoryWith([
        { kind: "sampled", calls: [ok(), failed("TOOL_ERROR")] },
        { kind: "observation" },
        { kind: "sampled" },
      ]),
      sampledTexts: ["<tool_call>…</tool_call>", "<answer>Shakespeare</answer>"],
    }),
  ],
  [
    "an environment's final state",
    rewardInput({
      task: { ...qaTask([]), environment: { server: "kv", config: {} } },
      trajectory: {
        ...trajectoryWith([{ kind: "sampled" }]),
        metadata: {
          environment: { server: "kv", snapshots: [{ user_turn: 0, final: true, state: { a: "1" } }] },
        },
      },
    }),
  ],
  [
    "an environment's final state stored as a diff against its initial state",
    rewardInput({
      task: { ...qaTask([]), environment: { server: "kv", config: {} } },
      trajectory: {
        ...trajectoryWith([{ kind: "sampled" }]),
        metadata: {
          environment: {
            server: "kv",
            snapshots: [
              {
                user_turn: 0,
                final: true,
                diff: [{ op: "add", path: "/b", value: "2" }],
                base: { digest: stateDigest({ a: "1" }), bytes: 9 },
                bytes: 17,
              },
            ],
          },
        },
      },
    }),
  ],
  [
    "an environment's final state holding its own summed reward (rlf env openenv)",
    rewardInput({
      task: { ...qaTask([]), environment: { server: "echo_env", config: {} } },
      trajectory: {
        ...trajectoryWith([{ kind: "sampled" }]),
        metadata: {
          environment: {
            server: "echo_env",
            snapshots: [{ user_turn: 0, final: true, state: { state: { step_count: 2 }, reward: 0.7 } }],
          },
        },
      },
    }),
  ],
  [
    "an environment's final state stored truncated",
    rewardInput({
      trajectory: {
        ...trajectoryWith([{ kind: "sampled" }]),
        metadata: {
          environment: {
            server: "kv",
            snapshots: [{ user_turn: 0, final: true, truncated: true, bytes: 9e6 }],
          },
        },
      },
    }),
  ],
];

const outcome = (over: Partial<ToolCallOutcome>): ToolCallOutcome => ({
  isError: false,
  errorCode: "OK",
  text: "ok",
  structured: null,
  ...over,
});
const tools = (result: ToolCallOutcome): ToolInvoker => ({ call: async () => result });
const judge = (score: Judge["score"]): Judge => ({ score });

/** The contexts it may score in: healthy, degraded, broken, cancelled. */
const CONTEXTS: [string, RewardContext][] = [
  [
    "healthy tools and judge",
    {
      tools: tools(outcome({ structured: { match: true } })),
      episodes: {
        start: async () => "ep",
        fork: async (_id, n) => Array.from({ length: n }, (_, i) => `ep${i}`),
        snapshot: async () => ({ a: "1" }),
        end: async () => ({ a: "1" }),
      },
      judge: judge(async () => ({ score: 0.75, explanation: "close" })),
    },
  ],
  [
    "a numeric tool score and a zero verdict",
    { tools: tools(outcome({ structured: { match: 0.4 } })), judge: judge(async () => ({ score: 0 })) },
  ],
  [
    "a tool that reports its own error and no judge",
    { tools: tools(outcome({ isError: true, text: "no such table: singers" })) },
  ],
  [
    "the gateway and the judge down",
    {
      tools: tools(outcome({ errorCode: "UNAVAILABLE", text: "upstream sql is down" })),
      judge: judge(() => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:50053"))),
    },
  ],
  [
    "an unknown tool and a judge out of range",
    {
      tools: tools(outcome({ errorCode: "UNKNOWN_TOOL", text: "no tool sql__verify" })),
      judge: judge(async () => ({ score: 2 })),
    },
  ],
  [
    "a result without the score and a judge answering NaN",
    {
      tools: tools(outcome({ structured: { other: 1 } })),
      judge: judge(async () => ({ score: Number.NaN })),
    },
  ],
  [
    "a cancelled scoring",
    {
      tools: tools(outcome({ errorCode: "CANCELLED", text: "cancelled" })),
      judge: judge(
        (request) => new Promise((_, reject) => request.signal?.addEventListener("abort", reject)),
      ),
      signal: AbortSignal.abort(),
    },
  ],
];

describe.each(REWARD_COMPONENT_TYPES)("reward component %s", (type) => {
  const example: ComponentEntry = CASES[type];
  const definition = rewardComponents[type];

  it("parses a minimal entry with weight 1 and no name, through its schema and the config's union", () => {
    const parsed = definition.schema.parse(example);
    expect(parsed).toMatchObject({ ...example, weight: 1 });
    expect(parsed).not.toHaveProperty("name");
    expect(rewardComponentSchema.parse(example)).toEqual(parsed);
    expect(parseRewardConfig([example]).components).toEqual([parsed]);
  });

  it("refuses an unknown key, naming it", () => {
    expect(definition.schema.safeParse({ ...example, not_a_key: 1 }).success).toBe(false);
    expect(() => parseRewardConfig([{ ...example, not_a_key: 1 }])).toThrow(/not_a_key/);
    expect(() => parseRewardConfig([{ ...example, weight: "heavy" }])).toThrow(/weight/);
  });

  it("is named after its type unless given a name; a second unnamed one is refused", () => {
    expect(definition.create(definition.schema.parse(example)).name).toBe(type);
    expect(createRewardFn([example]).names).toEqual([type]);
    expect(createRewardFn([{ ...example, name: "mine" }, example]).names).toEqual(["mine", type]);
    expect(() => parseRewardConfig([example, example])).toThrow(/used twice/);
  });

  it("scores every input in every context as a finite value in its range, or a typed scoring error", async () => {
    const [min, max] = definition.range;
    const component = definition.create(
      definition.schema.parse({ ...example, name: "under_test", weight: 0.5 }),
    );
    expect(component.weight).toBe(0.5);
    let scored = 0;
    for (const [inputName, input] of INPUTS) {
      for (const [ctxName, ctx] of CONTEXTS) {
        const where = `${inputName}, ${ctxName}`;
        try {
          const { value } = await component.score(input, ctx);
          expect(Number.isFinite(value), where).toBe(true);
          expect(value >= min && value <= max, `${where}: ${value} in [${min}, ${max}]`).toBe(true);
          scored++;
        } catch (err) {
          expect(isRewardScoringError(err), `${where}: ${String(err)}`).toBe(true);
          if (isRewardScoringError(err)) {
            expect(err.component, where).toBe("under_test");
            expect(err.code, where).toMatch(/^[A-Z][A-Z_]*$/);
            expect(err.message, where).not.toBe("");
          }
        }
      }
    }
    expect(scored).toBeGreaterThan(0);
  });

  it("is reported by the composed reward under its name: a value, or a null reward with the error", async () => {
    const fn = createRewardFn([{ ...example, name: "under_test" }]);
    for (const [, input] of INPUTS) {
      for (const [, ctx] of CONTEXTS) {
        const result = await fn.score(input, ctx);
        if (result.error === null) {
          const value = result.components.under_test;
          const skipped = value === undefined && result.details.under_test?.startsWith("skipped");
          expect(value !== undefined || skipped).toBe(true);
          expect(result.reward).toBe(value ?? 0);
        } else {
          expect(result.reward).toBeNull();
          expect(result.error.component).toBe("under_test");
          expect(result.error.code).not.toBe("INTERNAL");
        }
      }
    }
  });
});

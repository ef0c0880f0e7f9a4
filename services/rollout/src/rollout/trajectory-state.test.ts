// The state the phases share: what a trajectory's record starts with, the one cancellation check, the
// malformed count and the budget-checked append. Real Qwen3 tokenizer; scripted sampler and tools.
import { beforeAll, describe, expect, it } from "vitest";
import { GatewayCallError } from "../gateway-tools.ts";
import { InferenceError } from "../inference/types.ts";
import { type ModelTokenizer, qwen3Tokenizer } from "../tokenizer/model-tokenizer.ts";
import { SCRIPTED, scriptedState, TASK } from "./__fixtures__/scripted-loop.ts";
import { UserSimulatorError } from "./user-simulator.ts";

let tokenizer: ModelTokenizer;
beforeAll(async () => {
  tokenizer = await qwen3Tokenizer();
});

/** The record as it would be written now (finished as `failed` so that toJSON accepts it). */
const recordOf = (state: ReturnType<typeof scriptedState>["state"]) => {
  state.builder.finish("failed", "test");
  return state.builder.toJSON();
};

describe("a trajectory's state", () => {
  it("starts a single-turn task's record with its ids and the three metadata fields, no user turns", () => {
    const { state, promptIds } = scriptedState({ sampler: [] }, tokenizer);
    expect(state.context).toEqual(promptIds);
    const t = recordOf(state);
    expect(t.prompt_ids).toEqual(promptIds);
    expect(t.metadata).toEqual({ trajectory_id: "g/0", data_source: "unit", format: "hermes" });
  });

  it("records a conversation's user turns and an environment's snapshots, the tools of a task that names them", () => {
    const task = { ...SCRIPTED, tools: ["search__search"], environment: { server: "search", config: {} } };
    const { state } = scriptedState({ sampler: [], task }, tokenizer);
    expect(recordOf(state).metadata).toEqual({
      trajectory_id: "g/0",
      data_source: "unit",
      format: "hermes",
      user_turns: [
        {
          index: 0,
          source: "prompt",
          content: TASK.prompt[0]!.content,
          turn: null,
          response_start: 0,
          tools: ["search__search"],
        },
      ],
      environment: { server: "search", snapshots: [] },
    });
    expect([...state.offered]).toEqual(["search__search"]);
  });

  it("has one cancellation check: the run's signal, or a collaborator's CANCELLED", () => {
    const { h, state } = scriptedState({ sampler: [] }, tokenizer);
    const cancelledErrors = [
      new InferenceError("CANCELLED", "x"),
      new GatewayCallError("CANCELLED", "x"),
      new UserSimulatorError("CANCELLED", "x"),
    ];
    const otherErrors = [
      new InferenceError("UNAVAILABLE", "x"),
      new GatewayCallError("UNAVAILABLE", "x"),
      new UserSimulatorError("TIMEOUT", "x"),
      new Error("CANCELLED"),
    ];
    expect([state.cancelled(), ...cancelledErrors.map((e) => state.cancelled(e))]).toEqual([
      false,
      true,
      true,
      true,
    ]);
    expect(otherErrors.map((e) => state.cancelled(e))).toEqual([false, false, false, false]);
    h.abort.abort();
    expect([state.cancelled(), ...otherErrors.map((e) => state.cancelled(e))]).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
  });

  it("counts malformed sampled turns in one place", () => {
    const { state } = scriptedState({ sampler: [] }, tokenizer);
    for (const m of [true, false, true]) state.countSampledTurn(m);
    expect([state.result.malformedTurns, state.result.sampledTurnMalformed]).toEqual([
      2,
      [true, false, true],
    ]);
  });

  it("appends an observation within the budget (loss mask 0), and ends truncated, appending nothing, past it", () => {
    const { state, promptIds } = scriptedState({ sampler: [], room: 10 }, tokenizer);
    const ids = tokenizer.encode("\n<|im_start|>user\nok<|im_end|>");
    expect(ids.length).toBeLessThan(10);
    expect(state.appendObservation(ids, "the observation needs")).toEqual({ kind: "appended", turn: 0 });
    expect(state.context).toEqual([...promptIds, ...ids]);
    expect(state.appendObservation(ids, "the observation needs")).toEqual({
      kind: "end",
      status: "truncated",
      reason: `context budget of ${promptIds.length + 10} tokens reached: the observation needs ${ids.length} more`,
    });
    const t = recordOf(state);
    expect([t.response_ids, t.loss_mask, t.turns]).toEqual([
      ids,
      ids.map(() => 0),
      [{ kind: "observation", start: 0, end: ids.length }],
    ]);
  });

  it("tells whether sampled ids end with the tokenizer's EOS", () => {
    const { state } = scriptedState({ sampler: [] }, tokenizer);
    const eos = tokenizer.eosTokenIds[0]!;
    expect([state.endsWithEos([1, eos]), state.endsWithEos([eos, 1]), state.endsWithEos([])]).toEqual([
      true,
      false,
      false,
    ]);
  });
});

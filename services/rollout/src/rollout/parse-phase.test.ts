// parse: the turn's text through the Hermes codec, and the single-turn rules that decide what the
// turn comes to (real Qwen3 tokenizer; the samples are built from text as the sampler would return them).
import { beforeAll, describe, expect, it } from "vitest";
import { type ModelTokenizer, qwen3Tokenizer } from "../tokenizer/model-tokenizer.ts";
import { ANSWER, call, MAX_TOKENS, PROSE, type Script, scriptedState } from "./__fixtures__/scripted-loop.ts";
import type { Sample } from "./generate-phase.ts";
import { NO_ACTION_MESSAGE, parsePhase, turnAction } from "./parse-phase.ts";

let tokenizer: ModelTokenizer;
beforeAll(async () => {
  tokenizer = await qwen3Tokenizer();
});

const sample = (text: string, more: Partial<Sample> = {}): Sample => ({
  turn: 0,
  ids: [...tokenizer.encode(text), tokenizer.eosTokenIds[0]!],
  finishReason: "stop",
  maxTokens: MAX_TOKENS,
  ...more,
});

const act = (text: string, script: Partial<Script> = {}, more: Partial<Sample> = {}) => {
  const { state } = scriptedState({ sampler: [], ...script }, tokenizer);
  const s = sample(text, more);
  return { state, out: turnAction(state, s, parsePhase(state, s)) };
};

describe("the parse phase", () => {
  it("decodes the turn without special tokens for the rewards, and tells whether it ends the model's turn", () => {
    const { state } = scriptedState({ sampler: [] }, tokenizer);
    const ends = [ANSWER, PROSE, call("x"), "<tool_call>\n{oops\n</tool_call>"].map(
      (text) => parsePhase(state, sample(text)).endsModelTurn,
    );
    expect(ends).toEqual([true, true, false, false]);
    expect(state.result.sampledTexts[0]).toBe(ANSWER);
  });

  it("an answer completes the trajectory and is its answer", () => {
    const { state, out } = act(`${ANSWER}\n${call("stray")}`);
    expect(out).toEqual({ kind: "end", status: "completed", reason: "answer" });
    expect([state.result.answer, state.result.sampledTurnMalformed]).toEqual(["Paris", [false]]);
  });

  it("no action ends the trajectory (no_action, no_action_length) or, nudged, is a malformed attempt to answer", () => {
    expect(act(PROSE).out).toEqual({ kind: "end", status: "completed", reason: "no_action" });
    expect(act(PROSE, {}, { finishReason: "length" }).out).toEqual({
      kind: "end",
      status: "completed",
      reason: "no_action_length",
    });
    const { state, out } = act(PROSE, { limits: { onNoAction: "nudge" } });
    expect(out).toMatchObject({
      kind: "act",
      calls: [],
      malformed: [{ code: "UNKNOWN_ACTION", message: NO_ACTION_MESSAGE, index: 0 }],
    });
    expect(state.result.malformedTurns).toBe(1);
  });

  it("calls and malformed attempts go on to the tools, each with its position in the turn", () => {
    const { state, out } = act(`${call("a")}\n<tool_call>\n{oops\n</tool_call>\n${call("b")}`);
    expect(out).toMatchObject({
      kind: "act",
      calls: [
        { name: "search__search", arguments: { query: "a" }, index: 0 },
        { name: "search__search", arguments: { query: "b" }, index: 2 },
      ],
      malformed: [{ code: "INVALID_JSON", index: 1 }],
    });
    expect(state.result.sampledTurnMalformed).toEqual([true]);
  });

  it("the last allowed turn, or a turn cut by the context budget, ends truncated instead of calling tools", () => {
    expect(act(call("x"), { limits: { maxTurns: 1 } }).out).toEqual({
      kind: "end",
      status: "truncated",
      reason: "max_turns (1) reached",
    });
    const { state, out } = act(call("x"), {}, { finishReason: "length", maxTokens: 10 });
    expect(out).toEqual({
      kind: "end",
      status: "truncated",
      reason: `context budget of ${state.deps.limits.maxContextTokens} tokens reached while generating`,
    });
  });
});

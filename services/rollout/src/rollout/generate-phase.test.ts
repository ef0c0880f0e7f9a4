// generate: what the sampler is asked for and what is appended, with the scripted sampler over the
// real Qwen3 tokenizer and the Hermes format.
import { beforeAll, describe, expect, it } from "vitest";
import { InferenceError } from "../inference/types.ts";
import { type ModelTokenizer, qwen3Tokenizer } from "../tokenizer/model-tokenizer.ts";
import {
  ANSWER,
  call,
  LOGPROB,
  MAX_TOKENS,
  type Script,
  scriptedState,
} from "./__fixtures__/scripted-loop.ts";
import { generatePhase, turnSampling } from "./generate-phase.ts";

let tokenizer: ModelTokenizer;
beforeAll(async () => {
  tokenizer = await qwen3Tokenizer();
});

const generate = async (script: Script, turn = 0) => {
  const s = scriptedState(script, tokenizer);
  const out = await generatePhase(s.state, turn);
  s.state.builder.finish("failed", "test");
  return { ...s, out, t: s.state.builder.toJSON() };
};

describe("the generate phase", () => {
  it("asks for max_tokens or the room left, the config's and the format's stop strings once each, seed + turn", () => {
    const { state, promptIds } = scriptedState(
      { sampler: [], room: 20, seed: 7, format: "search-r1" },
      tokenizer,
    );
    state.deps.sampling.stop = ["</answer>", "###"];
    expect(turnSampling(state, 3)).toEqual({
      temperature: 1,
      top_p: 1,
      max_tokens: 20,
      stop: ["</answer>", "###", "</search>"],
      seed: 10,
    });
    state.context.push(...promptIds.slice(0, 15));
    expect(turnSampling(state, 0).max_tokens).toBe(5);
    const roomy = scriptedState({ sampler: [] }, tokenizer).state;
    expect(turnSampling(roomy, 0)).toEqual({ temperature: 1, top_p: 1, max_tokens: MAX_TOKENS, stop: [] });
  });

  it("sends the context as the prompt and appends the sampled ids with their logprobs (loss mask 1)", async () => {
    const { h, out, t, promptIds, state } = await generate({
      sampler: [{ text: call("x"), weightVersion: "12" }],
    });
    const ids = h.sampled[0]!;
    expect(h.requests.map((r) => [r.promptIds, r.sessionId])).toEqual([[promptIds, "g/0"]]);
    expect(out).toEqual({
      kind: "sampled",
      sample: { turn: 0, ids, finishReason: "stop", maxTokens: MAX_TOKENS },
    });
    expect([t.response_ids, t.loss_mask, t.rollout_logprobs]).toEqual([
      ids,
      ids.map(() => 1),
      ids.map(() => LOGPROB),
    ]);
    // the engine's weight version "12" is recorded as the step number
    expect(t.turns).toEqual([{ kind: "sampled", start: 0, end: ids.length, policy_version: 12 }]);
    expect(state.context).toEqual([...promptIds, ...ids]);
    expect(Object.keys(t.timings)).toEqual(["generate_ms"]);
  });

  it("a cut at max_tokens is a sample with finish_reason length", async () => {
    const { out } = await generate({ sampler: [{ text: ANSWER.repeat(20) }] });
    expect(out).toMatchObject({ kind: "sampled", sample: { finishReason: "length", maxTokens: MAX_TOKENS } });
  });

  it("ends the trajectory on the engine's abort (its tokens kept), no tokens, or a sampler failure", async () => {
    const aborted = await generate({ sampler: [{ text: "Let me think", finish: "abort" }] });
    expect(aborted.out).toEqual({
      kind: "end",
      status: "aborted",
      reason: "the inference engine aborted the request",
    });
    expect(aborted.t.turns.map((x) => x.kind)).toEqual(["sampled"]);

    const cases: [Script, string, string][] = [
      [{ sampler: [{ empty: true }] }, "failed", "inference returned no tokens (finish_reason stop)"],
      [
        { sampler: [{ error: new InferenceError("TIMEOUT", "no answer in 60 s") }] },
        "failed",
        "inference TIMEOUT: no answer in 60 s",
      ],
      [{ sampler: [{ error: new RangeError("bad") }] }, "failed", "inference ERROR: bad"],
      [{ sampler: [{ hang: true }] }, "aborted", "cancelled"],
    ];
    for (const [script, status, reason] of cases) {
      const { out, t } = await generate(script);
      expect(out).toEqual({ kind: "end", status, reason });
      expect([t.turns, Object.keys(t.timings)]).toEqual([[], ["generate_ms"]]);
    }
  });
});

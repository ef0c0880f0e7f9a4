// observe: the turn's attempts recorded in the order given and shown in the turn's order, tool bodies
// cut before they are wrapped, the observation appended after the sampled turn. Real Qwen3 tokenizer,
// chat template delta and Hermes / Search-R1 codecs.
import type { Trajectory } from "@rlfactory/contracts";
import { beforeAll, describe, expect, it } from "vitest";
import { malformedCall } from "../parsers/malformed.ts";
import { type ModelTokenizer, qwen3Tokenizer } from "../tokenizer/model-tokenizer.ts";
import { call, ok, type Script, scriptedState } from "./__fixtures__/scripted-loop.ts";
import { generatePhase } from "./generate-phase.ts";
import { type Observed, observePhase } from "./observe-phase.ts";

let tokenizer: ModelTokenizer;
beforeAll(async () => {
  tokenizer = await qwen3Tokenizer();
});

const tool = (index: number, query: string, text: string, more: object = {}): Observed => ({
  kind: "tool",
  index,
  call: { name: "search__search", arguments: { query }, raw: "", index },
  outcome: { ...ok([{ name: "search__search", arguments: { query } }])[0]!, text, ...more },
});

/** A sampled turn (one call), then the observation of `observed`. */
const observe = async (script: Partial<Script>, observed: readonly Observed[]) => {
  const { state } = scriptedState({ ...script, sampler: [{ text: call("x") }] }, tokenizer);
  const generated = await generatePhase(state, 0);
  if (generated.kind !== "sampled") throw new Error("the scripted turn was not sampled");
  const out = observePhase(state, generated.sample, observed);
  state.builder.finish("failed", "test");
  const t = state.builder.toJSON();
  return { out, t, state, text: observationText(t) };
};
const observationText = (t: Trajectory) => {
  const obs = t.turns[1];
  return obs === undefined ? "" : tokenizer.decode(t.response_ids.slice(obs.start, obs.end));
};

describe("the observe phase", () => {
  it("records the attempts in the order given and shows them in the turn's order, after the sampled EOS", async () => {
    const observed = [
      tool(0, "a", "first result"),
      tool(2, "b", "timed out", { errorCode: "TIMEOUT" }),
      { kind: "malformed", index: 1, malformed: malformedCall("INVALID_JSON", "bad JSON here", "{oops", 1) },
    ] satisfies Observed[];
    const { out, t, text } = await observe({}, observed);
    expect(out).toEqual({ kind: "next" });
    expect(t.tool_calls.map((c) => [c.name, c.error_code, c.result, c.turn])).toEqual([
      ["search__search", null, "first result", 0],
      ["search__search", "TIMEOUT", "timed out", 0],
      ["", "MALFORMED_INVALID_JSON", "bad JSON here", 0],
    ]);
    expect(text).toMatch(/^\n<\|im_start\|>user\n<tool_response>\nfirst result\n<\/tool_response>/);
    const order = ["first result", "Error [INVALID_JSON]: bad JSON here", "Error [TIMEOUT]: timed out"].map(
      (s) => text.indexOf(s),
    );
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(t.turns.map((x) => x.kind)).toEqual(["sampled", "observation"]);
    expect(new Set(t.loss_mask.slice(t.turns[1]!.start))).toEqual(new Set([0]));
  });

  it("cuts a tool body to max_tool_response_tokens before wrapping it; the record keeps it whole", async () => {
    const long = "lorem ipsum ".repeat(100);
    const { t, text } = await observe({ limits: { maxToolResponseTokens: 16 } }, [tool(0, "a", long)]);
    const body = /<tool_response>\n([\s\S]*)\n<\/tool_response>/.exec(text)?.[1] ?? "";
    expect(body).toMatch(/^lorem ipsum [\s\S]*\[\.\.\. truncated: \d+ tokens omitted\]$/);
    expect(tokenizer.encode(body).length).toBeLessThanOrEqual(16);
    expect(t.tool_calls[0]!.result).toBe(long);
  });

  it("appends a text observation verbatim for a text format (Search-R1)", async () => {
    const { text } = await observe({ format: "search-r1" }, [tool(0, "a", "Paris is in France.")]);
    expect(text).toBe("\n\n<information>Paris is in France.</information>\n\n");
  });

  it("ends truncated, nothing appended, when the observation would pass the context budget", async () => {
    const { out, t } = await observe({ room: 90 }, [tool(0, "a", "word ".repeat(80))]);
    expect(out).toMatchObject({ kind: "end", status: "truncated" });
    expect((out as { reason: string }).reason).toMatch(
      /^context budget of \d+ tokens reached: the observation needs \d+ more$/,
    );
    expect(t.turns.map((x) => x.kind)).toEqual(["sampled"]);
    expect(t.tool_calls).toHaveLength(1);
  });
});

import { type ModelTokenizer, qwen3Tokenizer } from "@rlfactory/rollout";
import { beforeAll, describe, expect, it } from "vitest";
import { type GenerationLimits, generate } from "./generation.ts";

let tok: ModelTokenizer;
let imEnd: number;
beforeAll(async () => {
  tok = await qwen3Tokenizer();
  imEnd = tok.requireTokenId("<|im_end|>");
});

const limits = (over: Partial<GenerationLimits> = {}): GenerationLimits => ({
  maxTokens: 512,
  stop: [],
  stopTokenIds: [],
  includeStop: false,
  skipSpecialTokens: true,
  stopStringWinsAtCap: true,
  ...over,
});

describe("generate: the engine's stop rules over a policy's text", () => {
  const answer = "<answer>Paris</answer>";

  it("appends <|im_end|> when the turn ends normally; the text leaves it out unless kept", () => {
    const g = generate(tok, { text: answer, ends: true }, limits());
    expect(g.ids).toEqual([...tok.encode(answer), imEnd]);
    expect(g).toMatchObject({ text: answer, finishReason: "stop", matched: imEnd, matchedEos: true });
    expect(tok.decode(g.ids, { skipSpecialTokens: true })).toBe(g.text);
    const kept = generate(
      tok,
      { text: answer, ends: true },
      limits({ includeStop: true, skipSpecialTokens: false }),
    );
    expect(kept.text).toBe(`${answer}<|im_end|>`);
  });

  it("caps at max_tokens with finish 'length' and no EOS; an EOS landing on the cap is still 'length'", () => {
    const n = tok.encode(answer).length;
    const cut = generate(tok, { text: answer, ends: true }, limits({ maxTokens: 3 }));
    expect(cut.ids).toEqual(tok.encode(answer).slice(0, 3));
    expect(cut).toMatchObject({ finishReason: "length", matched: null });
    expect(cut.text).toBe(tok.decode(cut.ids));
    const onCap = generate(tok, { text: answer, ends: true }, limits({ maxTokens: n + 1 }));
    expect(onCap.ids.at(-1)).toBe(imEnd);
    expect(onCap.finishReason).toBe("length");
    expect(generate(tok, { text: answer, ends: true }, limits({ maxTokens: n + 2 })).finishReason).toBe(
      "stop",
    );
  });

  it("cuts at the first stop string: kept or trimmed in the text, ids up to the token completing it, no EOS", () => {
    const text = "<search>capital of France</search>\n\n<information>made up</information>";
    const kept = generate(
      tok,
      { text, ends: true },
      limits({ stop: ["</search>", "</answer>"], includeStop: true }),
    );
    expect(kept).toMatchObject({
      text: "<search>capital of France</search>",
      finishReason: "stop",
      matched: "</search>",
    });
    expect(kept.ids).not.toContain(imEnd);
    // the ids end with the token that completed the match (Qwen3 writes ">\n\n" as one token)
    expect(tok.decode(kept.ids.slice(0, -1))).not.toContain("</search>");
    expect(tok.decode(kept.ids)).toContain("</search>");
    const trimmed = generate(tok, { text, ends: true }, limits({ stop: ["</search>"] }));
    expect(trimmed.text).toBe("<search>capital of France");
    expect(trimmed.ids).toEqual(kept.ids);
  });

  it("keeps a token that runs past the stop string in the ids, as engines do", () => {
    // Qwen3 encodes "</answer></search>" with a "></" token spanning the match's end
    const g = generate(
      tok,
      { text: "<answer>x</answer></search>", ends: true },
      limits({ stop: ["</answer>"], includeStop: true }),
    );
    expect(g.text).toBe("<answer>x</answer>");
    expect(tok.decode(g.ids)).toBe("<answer>x</answer></");
  });

  it("a stop string completed by the last allowed token is 'stop' on vLLM and 'length' on SGLang", () => {
    const text = "<answer>Paris</answer> and more";
    const count = tok.encode("<answer>Paris</answer>").length;
    const base = { stop: ["</answer>"], maxTokens: count };
    expect(
      generate(tok, { text, ends: true }, limits({ ...base, stopStringWinsAtCap: true })).finishReason,
    ).toBe("stop");
    expect(
      generate(tok, { text, ends: true }, limits({ ...base, stopStringWinsAtCap: false })).finishReason,
    ).toBe("length");
  });

  it("stops on a stop_token_ids entry and reports it (not as EOS)", () => {
    const callOpen = tok.requireTokenId("<tool_call>");
    const g = generate(
      tok,
      { text: `hi <tool_call>\n{}\n</tool_call>`, ends: true },
      limits({ stopTokenIds: [callOpen] }),
    );
    expect(g.ids.at(-1)).toBe(callOpen);
    expect(g).toMatchObject({ text: "hi ", matched: callOpen, matchedEos: false });
  });

  it("refuses a turn that neither ends nor reaches max_tokens (a policy bug)", () => {
    expect(() => generate(tok, { text: "short", ends: false }, limits())).toThrow(/policy bug/);
  });
});

// The vLLM and SGLang request bodies are written as bytes around the prompt's incrementally built JSON
// (PromptJson): byte for byte the UTF-8 of what JSON.stringify of the request object gives.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PromptJson } from "./prompt-json.ts";
import { generateRequest, generateRequestEnds } from "./sglang.ts";
import { type GenerateRequest, samplingParamsSchema } from "./types.ts";
import { completionRequest, completionRequestEnds } from "./vllm.ts";

const request: fc.Arbitrary<GenerateRequest> = fc.record(
  {
    promptIds: fc.array(fc.nat({ max: 200_000 }), { maxLength: 50 }),
    sampling: fc
      .record(
        {
          temperature: fc.double({ min: 0, max: 2, noNaN: true }),
          top_p: fc.double({ min: 0.01, max: 1, noNaN: true }),
          top_k: fc.integer({ min: -1, max: 100 }),
          min_p: fc.double({ min: 0, max: 1, noNaN: true }),
          max_tokens: fc.integer({ min: 1, max: 4096 }),
          stop: fc.array(fc.string({ unit: "binary" }), { maxLength: 3 }),
          repetition_penalty: fc.double({ min: 0.5, max: 2, noNaN: true }),
          seed: fc.integer(),
        },
        { requiredKeys: ["max_tokens"] },
      )
      .map((s) => samplingParamsSchema.parse(s)),
    images: fc.array(
      fc.record({
        mimeType: fc.constantFrom("image/png", "image/jpeg"),
        data: fc.uint8Array({ maxLength: 8 }),
      }),
      {
        maxLength: 2,
      },
    ),
    sessionId: fc.constantFrom("t/0", "t/1"),
  },
  { requiredKeys: ["promptIds", "sampling"] },
);

describe("request bodies as bytes", () => {
  it("vLLM's and SGLang's are exactly JSON.stringify of the request, turn after turn", () => {
    fc.assert(
      fc.property(
        fc.array(request, { minLength: 1, maxLength: 6 }),
        fc.string({ unit: "binary" }),
        (turns, model) => {
          const vllmPrompts = new PromptJson();
          const sglangPrompts = new PromptJson();
          let prompt: number[] = [];
          for (const turn of turns) {
            // the next turn's prompt: the previous one plus this turn's ids
            prompt = [...prompt, ...turn.promptIds];
            const r = { ...turn, promptIds: prompt };
            const v = completionRequestEnds(model, r);
            expect(vllmPrompts.body(r.sessionId, r.promptIds, v.head, v.tail)).toEqual(
              Buffer.from(JSON.stringify(completionRequest(model, r))),
            );
            const g = generateRequestEnds(r);
            expect(sglangPrompts.body(r.sessionId, r.promptIds, g.head, g.tail)).toEqual(
              Buffer.from(JSON.stringify(generateRequest(r))),
            );
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

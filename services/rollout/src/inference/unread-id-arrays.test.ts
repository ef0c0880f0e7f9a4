import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nullUnreadIdArrays } from "./unread-id-arrays.ts";

describe("nullUnreadIdArrays", () => {
  it("drops vLLM's echoed prompt ids and leaves every other member as it was", () => {
    const body = {
      id: "cmpl-1",
      choices: [
        {
          text: 'says "prompt_token_ids":[1,2] in its text',
          token_ids: [5, 6, 151645],
          prompt_token_ids: [151644, 872, 198, 0],
          logprobs: { token_logprobs: [-0.5, -1, 0] },
        },
        { token_ids: [7], prompt_token_ids: [] },
      ],
      prompt_token_ids: [[1, 2]],
    };
    const out = JSON.parse(nullUnreadIdArrays(JSON.stringify(body), ["prompt_token_ids"]));
    expect(out).toEqual({
      ...body,
      choices: [
        { ...body.choices[0], prompt_token_ids: null },
        { ...body.choices[1], prompt_token_ids: null },
      ],
    });
  });

  it("parses to the same value as the whole text, the cut members aside, for any JSON", () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.array(fc.nat()),
        fc.constantFrom("prompt_token_ids", "token_ids"),
        (other, ids, key) => {
          const text = JSON.stringify({
            other,
            [key]: ids,
            nested: { [key]: ids, note: JSON.stringify({ [key]: ids }) },
          });
          const cut = JSON.parse(nullUnreadIdArrays(text, [key]));
          // compared as JSON reads it back (-0 is written 0)
          expect(cut).toEqual(
            JSON.parse(
              JSON.stringify({
                other,
                [key]: null,
                nested: { [key]: null, note: JSON.stringify({ [key]: ids }) },
              }),
            ),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

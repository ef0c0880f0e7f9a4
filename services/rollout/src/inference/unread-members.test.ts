import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { unreadCutter } from "./unread-members.ts";

const KEYS = ["tokens", "top_logprobs", "text_offset", "prompt_logprobs"];

/** A cutter of members only (strings and objects walked), and one of integer lists only. */
const nullUnreadMembers = (text: string, keys: readonly string[]) =>
  unreadCutter([], keys)(Buffer.from(text));
const nullUnreadIdArrays = (text: string, keys: readonly string[]) =>
  unreadCutter(keys, [])(Buffer.from(text));

// strings that make a naive cutter stumble: quotes, backslashes, brackets, the member names themselves
const tricky = fc.oneof(
  fc.string({ unit: "binary" }),
  fc
    .array(
      fc.constantFrom('"', "\\", "[", "]", "{", "}", ",", ":", '"tokens":[', "\\u005d", "é", "😀", "a"),
      {
        maxLength: 12,
      },
    )
    .map((parts) => parts.join("")),
);
const nested = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    tricky,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(tricky, fc.constantFrom(...KEYS)), tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** A vLLM-like completion body: per-token members as vLLM writes them, plus random company. */
const body = fc.record({
  id: tricky,
  choices: fc.array(
    fc.record({
      text: tricky,
      token_ids: fc.array(fc.nat()),
      prompt_token_ids: fc.array(fc.nat()),
      logprobs: fc.record({
        tokens: fc.array(tricky),
        token_logprobs: fc.array(
          fc.oneof(fc.double({ max: 0, noNaN: true, noDefaultInfinity: true }), fc.constant(null)),
        ),
        top_logprobs: fc.array(fc.dictionary(tricky, fc.double({ noNaN: true, noDefaultInfinity: true }))),
        text_offset: fc.array(fc.nat()),
      }),
      prompt_logprobs: fc.oneof(
        fc.constant(null),
        fc.array(fc.oneof(fc.constant(null), fc.dictionary(tricky, nested))),
      ),
      finish_reason: fc.constantFrom("stop", "length"),
      stop_reason: fc.oneof(fc.constant(null), tricky, fc.nat()),
      extra: nested,
    }),
    { minLength: 1, maxLength: 3 },
  ),
  other: nested,
});

/**
 * `value` as JSON reads it back, with every member named in KEYS whose value is an array set to null,
 * and every member named in `idKeys` whose value is a list of integers.
 */
function withMembersNulled(value: unknown, idKeys: readonly string[] = []): unknown {
  if (Array.isArray(value)) return value.map((v) => withMembersNulled(v, idKeys));
  if (value === null || typeof value !== "object") return value;
  const cut = (k: string, v: unknown) =>
    (KEYS.includes(k) && Array.isArray(v)) ||
    (idKeys.includes(k) && Array.isArray(v) && v.every((x) => Number.isInteger(x)));
  // fromEntries: a `__proto__` key stays an own member, as JSON.parse makes it
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, cut(k, v) ? null : withMembersNulled(v, idKeys)]),
  );
}

describe("unreadCutter: members", () => {
  it("cuts vLLM's per-token strings and objects and keeps what the client reads", () => {
    const text = JSON.stringify({
      choices: [
        {
          text: 'a "tokens":["x"] b',
          token_ids: [5, 6],
          logprobs: {
            tokens: ["]", '"', "\\"],
            token_logprobs: [-0.5, -1],
            top_logprobs: [{ "]": -0.5 }, { '"}': -1 }],
            text_offset: [0, 1],
          },
          finish_reason: "stop",
          stop_reason: null,
        },
      ],
    });
    expect(JSON.parse(nullUnreadMembers(text, KEYS))).toEqual({
      choices: [
        {
          text: 'a "tokens":["x"] b',
          token_ids: [5, 6],
          logprobs: { tokens: null, token_logprobs: [-0.5, -1], top_logprobs: null, text_offset: null },
          finish_reason: "stop",
          stop_reason: null,
        },
      ],
    });
  });

  it("parses to what JSON.parse of the whole body gives with those members null, for random vLLM-like bodies", () => {
    fc.assert(
      fc.property(body, (b) => {
        const text = JSON.stringify(b);
        expect(JSON.parse(nullUnreadMembers(text, KEYS))).toEqual(withMembersNulled(JSON.parse(text)));
      }),
      { numRuns: 400 },
    );
  });

  it("never throws on malformed text, keeps a body cut short unreadable, and leaves what it cannot skip as it was", () => {
    fc.assert(
      fc.property(body, fc.nat(), fc.nat({ max: 8 }), (b, cutAt, dropped) => {
        const text = JSON.stringify(b);
        const at = cutAt % text.length;
        // characters missing in the middle: whatever comes out, nothing is thrown
        nullUnreadMembers(text.slice(0, at) + text.slice(at + dropped), KEYS);
        // a body cut short stays a body cut short
        expect(() => JSON.parse(nullUnreadMembers(text.slice(0, at), KEYS))).toThrow();
      }),
      { numRuns: 400 },
    );
    for (const text of [
      '{"tokens":[',
      '{"tokens":["]',
      '{"tokens":[}]',
      '{"tokens":["a"]x',
      '"tokens":[]',
      '\\"tokens":[1]}',
    ]) {
      expect(nullUnreadMembers(text, KEYS)).toBe(text);
    }
  });
});

describe("unreadCutter: both in one pass", () => {
  const cutter = unreadCutter(["prompt_token_ids"], KEYS);
  const cut = (text: string) => cutter(Buffer.from(text));

  it("cuts the echoed prompt and the per-token members in one pass, as the two cuts one after the other do", () => {
    fc.assert(
      fc.property(body, (b) => {
        const text = JSON.stringify(b);
        const once = cut(text);
        expect(once).toBe(nullUnreadMembers(nullUnreadIdArrays(text, ["prompt_token_ids"]), KEYS));
        expect(JSON.parse(once)).toEqual(withMembersNulled(JSON.parse(text), ["prompt_token_ids"]));
      }),
      { numRuns: 400 },
    );
  });

  it("leaves a body with nothing to cut as the same string", () => {
    const text = JSON.stringify({ choices: [{ token_ids: [1, 2], logprobs: { token_logprobs: [-1, -2] } }] });
    expect(cut(text)).toBe(text);
  });
});

describe("unreadCutter: integer lists", () => {
  it("cuts in the bytes and decodes the rest as the whole body decodes (multi-byte characters, a byte-order mark, invalid bytes)", () => {
    const body = Buffer.concat([
      Buffer.from('\uFEFF{"t":"é😀","prompt_token_ids":[1, -2,\n3],"u":"'),
      Buffer.from([0xff, 0xc3]),
      Buffer.from('ü"}'),
    ]);
    const whole = body.toString("utf8");
    expect(unreadCutter(["prompt_token_ids"], [])(body)).toBe(whole.replace("[1, -2,\n3]", "null"));
    // a list holding anything else stays, and the text is the whole body's
    const kept = Buffer.from('{"prompt_token_ids":[1,"é"],"v":"😀"}');
    expect(unreadCutter(["prompt_token_ids"], [])(kept)).toBe(kept.toString("utf8"));
  });

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

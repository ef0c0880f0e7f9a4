import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PromptJson } from "./prompt-json.ts";

type Edit =
  | { kind: "append"; ids: number[] }
  | { kind: "truncate"; keep: number }
  | { kind: "replace"; at: number; id: number }
  | { kind: "fork"; from: number }
  | { kind: "odd"; value: number };

const id = fc.oneof(fc.nat({ max: 200_000 }), fc.constantFrom(0, 2 ** 31 - 1));
const edit: fc.Arbitrary<Edit> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant("append" as const), ids: fc.array(id, { maxLength: 12 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("truncate" as const), keep: fc.nat({ max: 40 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("replace" as const), at: fc.nat({ max: 40 }), id }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("fork" as const), from: fc.nat({ max: 3 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("odd" as const),
      // ids JSON writes in ways of their own, or that an Int32Array cannot hold
      value: fc.constantFrom(-0, -1, 1.5, 2 ** 31, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY, 1e21),
    }),
  },
);

const HEAD = '{"model":"é","prompt":';
const TAIL = ',"stop":["🙂"]}';

/** The prompt's JSON in the body `cache` writes, its two ends around it checked. */
function promptText(cache: PromptJson, session: string | undefined, ids: readonly number[]): string {
  const body = cache.body(session, ids, HEAD, TAIL).toString("utf8");
  expect(body.startsWith(HEAD) && body.endsWith(TAIL)).toBe(true);
  return body.slice(HEAD.length, -TAIL.length);
}

describe("PromptJson", () => {
  it("writes exactly JSON.stringify(ids) whatever happens to a session's list between requests", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ session: fc.nat({ max: 3 }), edit, sameArray: fc.boolean() }), {
          maxLength: 60,
        }),
        fc.constantFrom(8, 64, 10_000),
        (steps, maxIds) => {
          const cache = new PromptJson(maxIds);
          // each session's current list; a fork copies another session's list
          const lists: number[][] = [[], [], [], []];
          for (const { session, edit, sameArray } of steps) {
            const prev = lists[session]!;
            // mutated in place (the caller reuses its array) or a new array each time
            const list = sameArray ? prev : [...prev];
            switch (edit.kind) {
              case "append":
                list.push(...edit.ids);
                break;
              case "truncate":
                list.length = Math.min(list.length, edit.keep);
                break;
              case "replace":
                if (list.length > 0) list[edit.at % list.length] = edit.id;
                break;
              case "fork":
                lists[session] = [...lists[edit.from]!];
                expect(promptText(cache, `s${session}`, lists[session]!)).toBe(
                  JSON.stringify(lists[session]),
                );
                continue;
              case "odd":
                list.push(edit.value);
                break;
            }
            lists[session] = list;
            expect(promptText(cache, `s${session}`, list)).toBe(JSON.stringify(list));
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it("serialises a list with holes as JSON does (null), and a list without a session whole", () => {
    const cache = new PromptJson();
    const holes = [1, 2];
    holes[4] = 5;
    expect(promptText(cache, "a", [1, 2])).toBe("[1,2]");
    expect(promptText(cache, "a", holes)).toBe(JSON.stringify(holes));
    expect(promptText(cache, undefined, [3])).toBe("[3]");
  });

  it("forgets the least recently used sessions once the ids it holds pass its bound", () => {
    const cache = new PromptJson(10);
    promptText(cache, "a", [1, 2, 3, 4]);
    promptText(cache, "b", [5, 6, 7, 8]);
    promptText(cache, "a", [1, 2, 3, 4, 9]); // a is now the most recently used
    expect(cache.size).toBe(2);
    promptText(cache, "c", [1, 2, 3]); // over 10 ids: b goes, a stays
    expect(cache.size).toBe(2);
    // a list longer than the bound is never kept
    promptText(
      cache,
      "d",
      Array.from({ length: 11 }, (_, i) => i),
    );
    expect(cache.size).toBe(2);
    expect(promptText(cache, "a", [1, 2, 3, 4, 9, 10])).toBe("[1,2,3,4,9,10]");
  });
});

// Seed questions from the task files our loaders read (NQ and HotpotQA as FlashRAG JSONL, our own
// tasks) and scenarios: content-hash ids, file order, the counts.seeds cap.
import { join } from "node:path";
import { haveSharedData, sharedDataPath } from "@rlfactory/test-support/shared-data";
import { describe, expect, it } from "vitest";
import { parseBuildConfig } from "./build-config.ts";
import { loadSeeds } from "./seeds.ts";

const ENDPOINT = { base_url: "http://127.0.0.1:8000/v1", model: "m" };
const NQ = "nq/test.jsonl";
const HOTPOT = "hotpotqa/dev.jsonl";

describe.skipIf(!haveSharedData("factory seeds", NQ, HOTPOT))("loadSeeds over shared task files", () => {
  it("reads NQ and HotpotQA rows (question and first gold answer), then scenarios, with content-hash ids", async () => {
    const config = parseBuildConfig({
      endpoint: ENDPOINT,
      input: {
        tasks: [
          { path: sharedDataPath(NQ), limit: 3 },
          { path: sharedDataPath(HOTPOT), limit: 2, shuffle_seed: 1 },
        ],
        scenarios: ["A pharmacy's prescriptions and refills."],
      },
    });
    const seeds = await loadSeeds(config);
    expect(seeds).toHaveLength(6);
    expect(seeds.slice(0, 3).every((s) => s.source.file === "test.jsonl" && s.question && s.answer)).toBe(
      true,
    );
    expect(seeds.slice(3, 5).every((s) => s.source.file === "dev.jsonl" && s.question && s.answer)).toBe(
      true,
    );
    expect(seeds[5]).toMatchObject({
      scenario: "A pharmacy's prescriptions and refills.",
      source: { scenario: 0 },
    });
    for (const s of seeds) expect(s.id).toMatch(/^t[0-9a-f]{12}$/);
    // The same input gives the same ids; counts.seeds keeps the first ones.
    expect((await loadSeeds(config)).map((s) => s.id)).toEqual(seeds.map((s) => s.id));
    const capped = await loadSeeds({ ...config, counts: { ...config.counts, seeds: 4 } });
    expect(capped.map((s) => s.id)).toEqual(seeds.slice(0, 4).map((s) => s.id));
    // Several questions per scenario: one seed each, ids apart.
    const three = await loadSeeds({ ...config, counts: { ...config.counts, questions_per_scenario: 3 } });
    expect(three.slice(5).map((s) => s.variant)).toEqual([
      { index: 1, of: 3 },
      { index: 2, of: 3 },
      { index: 3, of: 3 },
    ]);
    expect(new Set(three.map((s) => s.id)).size).toBe(8);
  });
});

describe("loadSeeds over our own task rows", () => {
  it("takes the question from extra_info (or the last user message) and the gold answer", async () => {
    const config = parseBuildConfig({
      endpoint: ENDPOINT,
      input: {
        tasks: [
          {
            path: join(import.meta.dirname, "../../../test/fixtures/factory/seed-questions.jsonl"),
            limit: 2,
          },
        ],
      },
    });
    const seeds = await loadSeeds(config);
    expect(seeds.map((s) => [s.question, s.answer])).toEqual([
      ["Which city hosts the tallest tower of the region? [single]", "Tallinn"],
      [
        "Who founded the company that built the first electric ferry, and when was it founded? [parallel]",
        "Ada Lindqvist",
      ],
    ]);
  });
});

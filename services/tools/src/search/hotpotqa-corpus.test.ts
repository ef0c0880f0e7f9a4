// `rlf data hotpotqa`: HotpotQA records (either layout) to a deduplicated Search-R1 corpus.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildHotpotqaCorpus } from "./hotpotqa-corpus.ts";

const dir = mkdtempSync(join(tmpdir(), "rlf-hotpotqa-"));
const readCorpus = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as unknown);

describe("buildHotpotqaCorpus", () => {
  it("writes one passage per distinct paragraph from the original list layout", async () => {
    const records = [
      {
        question: "q1",
        context: [
          ["Ed Wood", ["Edward Davis Wood Jr. was a filmmaker.", " He was born in 1924."]],
          ["Scott Derrickson", ["Scott Derrickson is a director."]],
        ],
      },
      {
        question: "q2",
        context: [
          ["Ed Wood", ["Edward Davis Wood Jr. was a filmmaker.", " He was born in 1924."]],
          ["Ed Wood", ["A different paragraph with the same title."]],
        ],
      },
    ];
    writeFileSync(join(dir, "original.json"), JSON.stringify(records));
    const out = join(dir, "original.jsonl");
    expect(await buildHotpotqaCorpus(join(dir, "original.json"), out)).toEqual({ passages: 3 });
    expect(readCorpus(out)).toEqual([
      { id: "0", contents: '"Ed Wood"\nEdward Davis Wood Jr. was a filmmaker. He was born in 1924.' },
      { id: "1", contents: '"Scott Derrickson"\nScott Derrickson is a director.' },
      { id: "2", contents: '"Ed Wood"\nA different paragraph with the same title.' },
    ]);
  });

  it("reads the Hugging Face layout (context: {title[], sentences[][]})", async () => {
    const records = [{ context: { title: ["A", "B"], sentences: [["One.", " Two."], ["Three."]] } }];
    writeFileSync(join(dir, "hf.json"), JSON.stringify(records));
    await buildHotpotqaCorpus(join(dir, "hf.json"), join(dir, "hf.jsonl"));
    expect(readCorpus(join(dir, "hf.jsonl"))).toEqual([
      { id: "0", contents: '"A"\nOne. Two.' },
      { id: "1", contents: '"B"\nThree.' },
    ]);
  });

  it("refuses a file that is not HotpotQA", async () => {
    writeFileSync(join(dir, "bad.json"), JSON.stringify([{ question: "no context" }]));
    await expect(buildHotpotqaCorpus(join(dir, "bad.json"), join(dir, "bad.jsonl"))).rejects.toThrow(
      /context/,
    );
  });
});

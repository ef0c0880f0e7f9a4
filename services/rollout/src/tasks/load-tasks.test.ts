import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { goldAnswers } from "@rlfactory/contracts";
import { sharedDataPath } from "@rlfactory/test-support/shared-data";
import type { SchemaElement } from "hyparquet";
import { type ColumnSource, parquetWriteFile } from "hyparquet-writer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTasks } from "./load-tasks.ts";
import { HERMES_QA_SYSTEM, searchR1Prompt } from "./prompt-templates.ts";
import { SAMPLE_HOTPOTQA_DATASET, SAMPLE_HOTPOTQA_TASKS } from "./sample-data.ts";

const REPO = resolve(import.meta.dirname, "../../../..");

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rlf-tasks-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function jsonl(name: string, rows: unknown[]): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `${rows.map((r) => (typeof r === "string" ? r : JSON.stringify(r))).join("\n")}\n`);
  return path;
}

async function lines(path: string): Promise<string[]> {
  return (await readFile(path, "utf8")).split("\n").filter((l) => l.trim() !== "");
}

// Parquet schema pieces, written the way pyarrow/HF datasets lay out verl rows.
const str = (name: string): SchemaElement => ({
  name,
  type: "BYTE_ARRAY",
  converted_type: "UTF8",
  repetition_type: "OPTIONAL",
});
const int64 = (name: string): SchemaElement => ({ name, type: "INT64", repetition_type: "OPTIONAL" });
const struct = (name: string, children: SchemaElement[][]): SchemaElement[] => [
  { name, repetition_type: "OPTIONAL", num_children: children.length },
  ...children.flat(),
];
const listOf = (name: string, element: SchemaElement[]): SchemaElement[] => [
  { name, repetition_type: "OPTIONAL", converted_type: "LIST", num_children: 1 },
  { name: "list", repetition_type: "REPEATED", num_children: 1 },
  ...element,
];
const messages = (name: string) => listOf(name, struct("element", [[str("content")], [str("role")]]));

function writeParquet(
  name: string,
  columns: { schema: SchemaElement[]; data: unknown[]; name: string }[],
): string {
  const path = join(dir, name);
  const schema: SchemaElement[] = [
    { name: "root", num_children: columns.length },
    ...columns.flatMap((c) => c.schema),
  ];
  const columnData = columns.map((c) => ({ name: c.name, data: c.data })) as ColumnSource[];
  parquetWriteFile({ filename: path, schema, columnData });
  return path;
}

const SR1_Q = [
  "who got the first nobel prize in physics?",
  "when is the next deadpool movie being released?",
];
const searchR1Rows = SR1_Q.map((q, i) => ({
  id: `test_${i}`,
  question: q,
  golden_answers: [`answer ${i}`],
  data_source: "nq",
  prompt: [{ role: "user", content: searchR1Prompt(q) }],
  ability: "fact-reasoning",
  reward_model: { style: "rule", ground_truth: { target: [`answer ${i}`] } },
  extra_info: { index: i, split: "test" },
}));

function searchR1Parquet(name: string, rows = searchR1Rows): string {
  return writeParquet(name, [
    { name: "id", schema: [str("id")], data: rows.map((r) => r.id) },
    { name: "question", schema: [str("question")], data: rows.map((r) => r.question) },
    {
      name: "golden_answers",
      schema: listOf("golden_answers", [str("element")]),
      data: rows.map((r) => r.golden_answers),
    },
    { name: "data_source", schema: [str("data_source")], data: rows.map((r) => r.data_source) },
    { name: "prompt", schema: messages("prompt"), data: rows.map((r) => r.prompt) },
    { name: "ability", schema: [str("ability")], data: rows.map((r) => r.ability) },
    {
      name: "reward_model",
      schema: struct("reward_model", [
        struct("ground_truth", [listOf("target", [str("element")])]),
        [str("style")],
      ]),
      data: rows.map((r) => r.reward_model),
    },
    {
      name: "extra_info",
      schema: struct("extra_info", [[int64("index")], [str("split")]]),
      data: rows.map((r) => ({ index: BigInt(r.extra_info.index), split: r.extra_info.split })),
    },
  ]);
}

describe("row shapes", () => {
  const expectedSearchR1 = searchR1Rows.map((r, i) => ({
    id: `nq_${i}`,
    data_source: "nq",
    prompt: r.prompt,
    ground_truth: { target: [`answer ${i}`] },
    extra_info: {
      index: i,
      split: "test",
      ability: "fact-reasoning",
      reward_style: "rule",
      question: r.question,
    },
  }));

  it("reads Search-R1/verl rows from JSONL and from Parquet (nested prompt list<struct>, struct columns) alike", async () => {
    const fromJsonl = await loadTasks({ path: await jsonl("sr1.jsonl", searchR1Rows) });
    const fromParquet = await loadTasks({ path: searchR1Parquet("sr1.parquet") });
    expect(fromJsonl).toEqual(expectedSearchR1);
    expect(fromParquet).toEqual(expectedSearchR1);
    expect(goldAnswers(fromParquet[1]!)).toEqual(["answer 1"]);
  });

  it.each(["search-r1-pyarrow.parquet", "search-r1-pyarrow-legacy-lists.parquet"])(
    "reads Search-R1 files as pyarrow writes them (%s, see fixtures/make-fixtures.py)",
    async (name) => {
      const tasks = await loadTasks({ path: join(import.meta.dirname, "fixtures", name) });
      expect(tasks.map((t) => [t.id, t.data_source])).toEqual([
        ["nq_0", "nq"],
        ["nq_1", "nq"],
        ["hotpotqa_0", "hotpotqa"],
      ]);
      expect(tasks[1]!.prompt).toEqual([
        { role: "user", content: searchR1Prompt("who wrote the test fixture?") },
      ]);
      expect(goldAnswers(tasks[1]!)).toEqual(["Ada", "Ada L."]);
      expect(tasks[2]!.extra_info).toEqual({
        index: 0,
        split: "test",
        ability: "fact-reasoning",
        reward_style: "rule",
        question: "when was the fixture made?",
      });
    },
  );

  it("takes a verl row's id from extra_info.id, else data_source_index, else the row number", async () => {
    const base = { prompt: [{ role: "user", content: "q" }], reward_model: { ground_truth: "a" } };
    const tasks = await loadTasks({
      path: await jsonl("ids.jsonl", [
        { ...base, data_source: "gsm8k", extra_info: { id: "abc", index: 5 } },
        { ...base, data_source: "gsm8k", extra_info: { index: 5 } },
        { ...base, data_source: "gsm8k" },
        { ...base },
      ]),
    });
    // the last row has no data_source: the file's folder name stands in
    const folder = dir.split("/").pop();
    expect(tasks.map((t) => t.id)).toEqual(["abc", "gsm8k_5", "gsm8k_2", `${folder}_3`]);
    expect(tasks.map((t) => t.ground_truth)).toEqual(["a", "a", "a", "a"]);
  });

  it("reads our own Task rows from JSONL and Parquet, keeping their prompt and ground truth", async () => {
    const rows = [
      {
        id: "sql-1",
        data_source: "spider",
        prompt: [
          { role: "system", content: "You write SQL." },
          { role: "user", content: "How many singers?" },
        ],
        ground_truth: "SELECT count(*) FROM singer",
        extra_info: { db: "concert_singer" },
      },
    ];
    const fromJsonl = await loadTasks({ path: await jsonl("own.jsonl", rows) });
    const fromParquet = await loadTasks({
      path: writeParquet("own.parquet", [
        { name: "id", schema: [str("id")], data: ["sql-1"] },
        { name: "data_source", schema: [str("data_source")], data: ["spider"] },
        { name: "prompt", schema: messages("prompt"), data: [rows[0]!.prompt] },
        { name: "ground_truth", schema: [str("ground_truth")], data: [rows[0]!.ground_truth] },
        { name: "extra_info", schema: struct("extra_info", [[str("db")]]), data: [rows[0]!.extra_info] },
      ]),
    });
    expect(fromJsonl).toEqual(rows);
    expect(fromParquet).toEqual(rows);
  });

  it("builds prompts for FlashRAG rows (default hermes-qa) from JSONL and Parquet", async () => {
    const rows = [
      { id: "test_0", question: "Who was president in 1812?", golden_answers: ["james madison"] },
      {
        id: "test_1",
        question: "What rocket launched Voyager 2",
        golden_answers: ["Titan IIIE", "Titan 3E"],
      },
    ];
    const expected = rows.map((r) => ({
      id: r.id,
      data_source: "bamboogle",
      prompt: [
        { role: "system", content: HERMES_QA_SYSTEM },
        { role: "user", content: r.question },
      ],
      ground_truth: { target: r.golden_answers },
      extra_info: { question: r.question },
    }));
    expect(await loadTasks({ path: await jsonl("fr.jsonl", rows), data_source: "bamboogle" })).toEqual(
      expected,
    );
    const parquet = writeParquet("fr.parquet", [
      { name: "id", schema: [str("id")], data: rows.map((r) => r.id) },
      { name: "question", schema: [str("question")], data: rows.map((r) => r.question) },
      {
        name: "golden_answers",
        schema: listOf("golden_answers", [str("element")]),
        data: rows.map((r) => r.golden_answers),
      },
    ]);
    expect(await loadTasks({ path: parquet, data_source: "bamboogle" })).toEqual(expected);
    const sr1 = await loadTasks({ path: parquet, prompt: { template: "search-r1" } });
    expect(sr1[1]!.prompt).toEqual([
      { role: "user", content: searchR1Prompt("What rocket launched Voyager 2?") },
    ]);
  });

  it("re-templates rows that carry a prompt from their question when a template is configured", async () => {
    const tasks = await loadTasks({
      path: searchR1Parquet("sr1-hermes.parquet"),
      prompt: { template: "hermes-qa", system: "Use tools." },
    });
    expect(tasks[0]!.prompt).toEqual([
      { role: "system", content: "Use tools." },
      { role: "user", content: SR1_Q[0] },
    ]);
  });

  it("picks the format by extension, or as configured", async () => {
    const asData = join(dir, "sr1.data");
    await writeFile(asData, await readFile(searchR1Parquet("sr1-copy.parquet")));
    await expect(loadTasks({ path: asData })).rejects.toThrow(/sr1\.data:1: not JSON/);
    expect(await loadTasks({ path: asData, format: "parquet" })).toHaveLength(2);
  });
});

describe("selection", () => {
  const rows = Array.from({ length: 50 }, (_, i) => ({
    id: `q${i}`,
    question: `q ${i}?`,
    golden_answers: ["a"],
  }));
  let path: string;
  beforeAll(async () => {
    path = await jsonl("fifty.jsonl", rows);
  });
  const ids = async (spec: Record<string, unknown>) => (await loadTasks({ path, ...spec })).map((t) => t.id);

  it("offset and limit slice the file in order", async () => {
    expect(await ids({ offset: 10, limit: 3 })).toEqual(["q10", "q11", "q12"]);
    expect(await ids({ offset: 48, limit: 5 })).toEqual(["q48", "q49"]);
    expect(await ids({ offset: 60 })).toEqual([]);
  });

  it("a shuffle seed gives one fixed order; offset/limit windows of it are disjoint and cover the file", async () => {
    const all = await ids({ shuffle_seed: 7 });
    expect(await ids({ shuffle_seed: 7 })).toEqual(all);
    expect(all).not.toEqual(rows.map((r) => r.id));
    expect([...all].sort()).toEqual(rows.map((r) => r.id).sort());
    expect(await ids({ shuffle_seed: 8 })).not.toEqual(all);
    const windows = [
      ...(await ids({ shuffle_seed: 7, limit: 20 })),
      ...(await ids({ shuffle_seed: 7, offset: 20, limit: 20 })),
      ...(await ids({ shuffle_seed: 7, offset: 40 })),
    ];
    expect(windows).toEqual(all);
  });

  it("the same seed selects the same tasks from Parquet", async () => {
    const parquet = writeParquet("fifty.parquet", [
      { name: "id", schema: [str("id")], data: rows.map((r) => r.id) },
      { name: "question", schema: [str("question")], data: rows.map((r) => r.question) },
      {
        name: "golden_answers",
        schema: listOf("golden_answers", [str("element")]),
        data: rows.map(() => ["a"]),
      },
    ]);
    const fromParquet = (await loadTasks({ path: parquet, shuffle_seed: 3, offset: 5, limit: 10 })).map(
      (t) => t.id,
    );
    expect(fromParquet).toEqual(await ids({ shuffle_seed: 3, offset: 5, limit: 10 }));
    expect(new Set(fromParquet).size).toBe(10);
  });
});

describe("bad input", () => {
  it("names the file and line of a row that is not JSON, of no known shape, or invalid", async () => {
    const good = { id: "a", question: "q", golden_answers: ["x"] };
    const notJson = await jsonl("bad1.jsonl", [good, "", "{oops"]);
    await expect(loadTasks({ path: notJson })).rejects.toThrow(/bad1\.jsonl:3: not JSON/);
    const unknown = await jsonl("bad2.jsonl", [good, { text: "hello", label: 1 }]);
    await expect(loadTasks({ path: unknown })).rejects.toThrow(
      /bad2\.jsonl:2: row matches no known shape \(keys: text, label\)/,
    );
    const badRole = await jsonl("bad3.jsonl", [{ id: "a", prompt: [{ role: "robot", content: "hi" }] }]);
    await expect(loadTasks({ path: badRole })).rejects.toThrow(/bad3\.jsonl:1: not a valid task row: .*role/);
    const badAnswers = await jsonl("bad4.jsonl", [
      good,
      good,
      { id: "c", question: "q", golden_answers: "x" },
    ]);
    await expect(loadTasks({ path: badAnswers })).rejects.toThrow(/bad4\.jsonl:2: duplicate task id "a"/);
    await expect(loadTasks({ path: badAnswers, offset: 2 })).rejects.toThrow(
      /bad4\.jsonl:3: not a valid flashrag row: .*golden_answers/,
    );
  });

  it("names the row of a bad Parquet row, and refuses a template without a question", async () => {
    const path = writeParquet("bad.parquet", [
      { name: "id", schema: [str("id")], data: ["a", "b"] },
      { name: "prompt", schema: messages("prompt"), data: [[{ role: "user", content: "hi" }], []] },
    ]);
    await expect(loadTasks({ path })).rejects.toThrow(/bad\.parquet: row 1 \(0-based\): .*prompt/);
    await expect(loadTasks({ path, limit: 1, prompt: { template: "search-r1" } })).rejects.toThrow(
      /row 0 \(0-based\): prompt.template "search-r1" needs the row's question/,
    );
  });

  it("rejects a bad config and a missing file with a clear message", async () => {
    await expect(loadTasks({ path: "x.jsonl", limit: 0 })).rejects.toThrow(
      /invalid dataset config.*\n.*limit/,
    );
    await expect(loadTasks({ path: join(dir, "missing.jsonl") })).rejects.toThrow(
      /cannot read dataset .*missing/,
    );
    await expect(loadTasks({ path: join(dir, "missing.parquet") })).rejects.toThrow(/cannot read dataset/);
  });
});

describe("multi-turn task rows", () => {
  const row = {
    id: "flights-1",
    prompt: [{ role: "user", content: "Book me a flight." }],
    tools: ["airline__search"],
    turns: [
      { content: "From Paris to Rome.", tools: ["airline__search", "airline__book"] },
      { content: "Tomorrow morning, please.", ground_truth: [{ airline__book: { from: "CDG", to: "FCO" } }] },
    ],
  };

  it("keep their tools, later turns (with per-turn tools and ground truth) and user simulator", async () => {
    const simulated = {
      id: "flights-2",
      prompt: [{ role: "user", content: "Hi." }],
      user_simulator: { instruction: "You want a flight from Paris to Rome tomorrow." },
    };
    const tasks = await loadTasks({ path: await jsonl("turns.jsonl", [row, simulated]) });
    expect(tasks[0]).toMatchObject({ tools: row.tools, turns: row.turns });
    expect(tasks[0]!.user_simulator).toBeUndefined();
    expect(tasks[1]).toMatchObject({ user_simulator: simulated.user_simulator });
    expect(tasks[1]!.turns).toBeUndefined();
  });

  it("a bad turn, tool list or simulator is refused naming the file:line, the task and the field", async () => {
    const bad = [
      { ...row, turns: [{ content: "" }] },
      { ...row, turns: [{ content: "ok", tools: "airline__book" }] },
      { ...row, tools: ["a", "a"] },
      { ...row, user_simulator: { instruction: "x" } },
      { ...row, turns: undefined, user_simulator: {} },
      { ...row, turns: [{ content: "ok", tool: ["a"] }] },
    ];
    const fields = [
      "turns[0].content",
      "turns[0].tools",
      "tools",
      "user_simulator",
      "user_simulator.instruction",
      "turns[0]",
    ];
    for (const [i, r] of bad.entries()) {
      const path = await jsonl(`bad-turns-${i}.jsonl`, [r]);
      const refused = loadTasks({ path });
      await expect(refused).rejects.toThrow(`${path}:1: task row gives an invalid task "flights-1": `);
      await expect(loadTasks({ path })).rejects.toThrow(`→ at ${fields[i]}`);
    }
  });
});

describe("the shared QA datasets", () => {
  it.each([
    ["hotpotqa", "hotpotqa/dev.jsonl"],
    ["nq", "nq/test.jsonl"],
    ["bamboogle", "bamboogle/test.jsonl"],
  ])(
    "%s loads every row with its question in the prompt and its answers as ground truth",
    async (name, file) => {
      const path = sharedDataPath(file);
      const raw = (await lines(path)).map(
        (l) => JSON.parse(l) as { id: string; question: string; golden_answers: string[] },
      );
      const tasks = await loadTasks({ path });
      expect(tasks).toHaveLength(raw.length);
      expect(new Set(tasks.map((t) => t.data_source))).toEqual(new Set([name]));
      for (const k of [0, raw.length >> 1, raw.length - 1]) {
        const t = tasks[k]!;
        expect(t.id).toBe(raw[k]!.id);
        expect(t.prompt.map((m) => m.role)).toEqual(["system", "user"]);
        expect(t.prompt[1]!.content).toBe(raw[k]!.question.trim());
        expect(goldAnswers(t)).toEqual(raw[k]!.golden_answers);
      }
      const sr1 = await loadTasks({ path, limit: 2, prompt: { template: "search-r1" } });
      expect(sr1[1]!.prompt).toEqual([{ role: "user", content: searchR1Prompt(raw[1]!.question) }]);
      expect(sr1[1]!.prompt[0]!.content).toContain(`Question: ${raw[1]!.question.trim()}`);
    },
  );
});

describe("the sample task set", () => {
  it("is the first 30 rows of the shared HotpotQA dev set, byte for byte, with the SHA-256 its SOURCE.md gives", async () => {
    const sample = await readFile(SAMPLE_HOTPOTQA_TASKS);
    const dev = await lines(sharedDataPath("hotpotqa/dev.jsonl"));
    expect(sample.toString("utf8")).toBe(`${dev.slice(0, 30).join("\n")}\n`);
    const source = await readFile(join(import.meta.dirname, "../../data/SOURCE.md"), "utf8");
    expect(source).toContain(createHash("sha256").update(sample).digest("hex"));
    expect(source).toContain("CC BY-SA 4.0");
  });

  it("asks the questions whose context paragraphs are the search tool's bundled corpus", async () => {
    const tasks = await loadTasks(SAMPLE_HOTPOTQA_DATASET);
    expect(tasks).toHaveLength(30);
    expect(tasks.every((t) => t.data_source === "hotpotqa")).toBe(true);
    const records = JSON.parse(
      await readFile(sharedDataPath("hotpotqa/hotpot_dev_distractor_first100_hf.json"), "utf8"),
    ) as { question: string; answer: string; supporting_facts: { title: string[] } }[];
    const corpus = await lines(join(REPO, "services/tools/data/search/sample-corpus.jsonl"));
    const titles = new Set(
      corpus.map((l) => JSON.parse((JSON.parse(l) as { contents: string }).contents.split("\n")[0]!)),
    );
    tasks.forEach((t, i) => {
      expect(t.extra_info.question).toBe(records[i]!.question);
      expect(goldAnswers(t)).toEqual([records[i]!.answer]);
      for (const title of records[i]!.supporting_facts.title) expect(titles).toContain(title);
    });
  });
});

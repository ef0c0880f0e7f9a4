// `rlf data bfcl`'s converter: the whole of BFCL multi_turn_base converts, entries checked field by field
// against the source, held-out functions (miss_func) on a synthetic entry, and errors that name the
// file, line and field.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { taskSchema } from "@rlfactory/contracts";
import { haveSharedData, sharedDataPath } from "@rlfactory/test-support/shared-data";
import { beforeAll, describe, expect, it } from "vitest";
import { BFCL_HOLDOUT_TURN_MESSAGE, type BfclTask, convertBfclTasks } from "./bfcl-tasks.ts";

const QUESTIONS = "bfcl/BFCL_v4_multi_turn_base.json";
const ANSWERS = "bfcl/possible_answer/BFCL_v4_multi_turn_base.json";
const FUNC_DOCS = "bfcl/multi_turn_func_doc";

const jsonl = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** BFCL's function names of one func-doc file, in file order. */
const namesIn = (file: string) => jsonl(join(sharedDataPath(FUNC_DOCS), file)).map((d) => d.name as string);

const haveBfcl = haveSharedData("BFCL multi_turn_base", QUESTIONS, ANSWERS, FUNC_DOCS);

describe.skipIf(!haveBfcl)("BFCL multi_turn_base as tasks", () => {
  let tasks: BfclTask[];
  let source: Map<string, Record<string, unknown>>;
  beforeAll(async () => {
    tasks = await convertBfclTasks({
      questions: sharedDataPath(QUESTIONS),
      answers: sharedDataPath(ANSWERS),
      funcDocs: sharedDataPath(FUNC_DOCS),
    });
    source = new Map(jsonl(sharedDataPath(QUESTIONS)).map((e) => [e.id as string, e]));
  });
  const task = (id: string) => tasks.find((t) => t.id === id)!;

  it("converts all 200 entries, in file order, ids kept; each is a valid rollout task", () => {
    expect(tasks).toHaveLength(200);
    expect(tasks.map((t) => t.id)).toEqual([...source.keys()]);
    for (const t of tasks) expect(taskSchema.safeParse(t).success, t.id).toBe(true);
    // 734 user turns in all: one prompt per entry, the rest later turns; 1142 ground-truth calls, of
    // which one (multi_turn_base_173's) breaks its function's schema and is listed as such.
    expect(tasks.reduce((n, t) => n + 1 + t.turns.length, 0)).toBe(734);
    expect(
      tasks.reduce((n, t) => n + t.ground_truth.length + t.turns.flatMap((u) => u.ground_truth).length, 0),
    ).toBe(1142);
    expect(tasks.filter((t) => t.extra_info.off_schema_ground_truth !== undefined).map((t) => t.id)).toEqual([
      "multi_turn_base_173",
    ]);
    // base withholds nothing: no turn changes the tools.
    expect(tasks.flatMap((t) => t.turns).filter((u) => u.tools !== undefined)).toEqual([]);
  });

  it("multi_turn_base_0, field by field", () => {
    const t = task("multi_turn_base_0");
    const e = source.get("multi_turn_base_0")! as {
      question: { role: string; content: string }[][];
      initial_config: unknown;
      path: string[];
    };
    expect(t.data_source).toBe("bfcl_multi_turn_base");
    expect(t.prompt).toEqual([{ role: "user", content: e.question[0]![0]!.content }]);
    expect(t.prompt[0]!.content).toMatch(/^Move 'final_report.pdf' within document directory/);
    expect(t.turns.map((u) => u.content)).toEqual(e.question.slice(1).map((q) => q[0]!.content));
    expect(t.environment).toEqual({
      server: "bfcl",
      config: { involved_classes: ["TwitterAPI", "GorillaFileSystem"], initial_config: e.initial_config },
    });
    const offered = [...namesIn("posting_api.json"), ...namesIn("gorilla_file_system.json")];
    expect(t.tools).toEqual(offered);
    expect(t.tools).toContain("cp"); // excluded_function is data-generation metadata; bfcl-eval still offers it
    expect(t.tool_aliases).toEqual(Object.fromEntries(offered.map((n) => [n, `bfcl__${n}`])));
    expect(t.extra_info).toEqual({ category: "multi_turn_base", path: e.path, excluded_function: ["cp"] });
    expect(t.ground_truth).toEqual([
      { name: "cd", arguments: { folder: "document" } },
      { name: "mkdir", arguments: { dir_name: "temp" } },
      { name: "mv", arguments: { source: "final_report.pdf", destination: "temp" } },
    ]);
    expect(t.turns.map((u) => u.ground_truth)).toEqual([
      [
        { name: "cd", arguments: { folder: "temp" } },
        { name: "grep", arguments: { file_name: "final_report.pdf", pattern: "budget analysis" } },
      ],
      // `sort('final_report.pdf')`: the positional argument takes the func doc's first parameter name
      [{ name: "sort", arguments: { file_name: "final_report.pdf" } }],
      [
        { name: "cd", arguments: { folder: ".." } },
        { name: "mv", arguments: { source: "previous_report.pdf", destination: "temp" } },
        { name: "cd", arguments: { folder: "temp" } },
        { name: "diff", arguments: { file_name1: "final_report.pdf", file_name2: "previous_report.pdf" } },
      ],
    ]);
  });

  it("multi_turn_base_56 and _31: positional arguments, floats, booleans and lists", () => {
    const t = task("multi_turn_base_56");
    expect(t.environment.config.involved_classes).toEqual(["VehicleControlAPI"]);
    expect(t.ground_truth[0]).toEqual({
      name: "get_zipcode_based_on_city",
      arguments: { city: "San Francisco" },
    });
    expect(t.turns[0]!.ground_truth[0]).toEqual({ name: "displayCarStatus", arguments: { option: "fuel" } });
    expect(t.turns[1]!.ground_truth.slice(0, 2)).toEqual([
      {
        name: "lockDoors",
        arguments: { unlock: false, door: ["driver", "passenger", "rear_left", "rear_right"] },
      },
      { name: "pressBrakePedal", arguments: { pedalPosition: 1 } },
    ]);
    expect(task("multi_turn_base_31").turns[0]!.ground_truth).toEqual([
      { name: "cd", arguments: { folder: "Reports" } },
      { name: "wc", arguments: { file_name: "summary.doc", mode: "c" } },
      { name: "mean", arguments: { numbers: [37] } },
    ]);
  });

  it("a ground-truth call that breaks its function's schema stays in the ground truth and is listed", () => {
    // BFCL's answer closes ticket 'ticket_001'; close_ticket's ticket_id is an integer. The gateway
    // refuses the call before it reaches the environment (bfcl-eval runs it: "not found", no change).
    const t = task("multi_turn_base_173");
    expect(t.turns[2]!.ground_truth).toEqual([
      { name: "close_ticket", arguments: { ticket_id: "ticket_001" } },
    ]);
    expect(t.extra_info.off_schema_ground_truth).toEqual([
      {
        user_turn: 3,
        call: "close_ticket(ticket_id='ticket_001')",
        reason: 'argument "ticket_id" is "ticket_001", not of its schema\'s type integer',
      },
    ]);
  });

  it("escapes in ground-truth strings come out as the text Python reads", () => {
    const all = tasks.flatMap((t) => [...t.ground_truth, ...t.turns.flatMap((u) => u.ground_truth)]);
    expect(all).toContainEqual({
      name: "echo",
      arguments: {
        content: "Student | Math | Computer Science\nAlice | 5 | 9\nBob | 10 | 7",
        file_name: "DataSet1.csv",
      },
    });
  });

  it("--server changes the gateway names, not the model-visible ones", async () => {
    const [first] = await convertBfclTasks({
      questions: sharedDataPath(QUESTIONS),
      answers: sharedDataPath(ANSWERS),
      funcDocs: sharedDataPath(FUNC_DOCS),
      server: "bfcl2",
    });
    expect(first!.environment.server).toBe("bfcl2");
    expect(first!.tool_aliases.cd).toBe("bfcl2__cd");
    expect(first!.tools).toEqual(tasks[0]!.tools);
  });
});

/** A synthetic BFCL set (one MathAPI-like class) written to a temp folder. */
function synthetic(entries: unknown[], answers: unknown[]) {
  const dir = mkdtempSync(join(tmpdir(), "bfcl-tasks-"));
  const docs = join(dir, "multi_turn_func_doc");
  const fn = (name: string, ...params: string[]) => ({
    name,
    description: `${name}.`,
    parameters: {
      type: "dict",
      properties: Object.fromEntries(params.map((p) => [p, { type: p === "numbers" ? "array" : "float" }])),
      required: params,
    },
  });
  const write = (path: string, rows: unknown[]) =>
    writeFileSync(path, rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
  mkdirSync(docs);
  write(join(docs, "math_api.json"), [
    fn("add", "a", "b"),
    fn("sort_list", "numbers"),
    fn("mean", "numbers"),
  ]);
  const questions = join(dir, "BFCL_v4_multi_turn_miss_func.json");
  const answerFile = join(dir, "answers.json");
  write(questions, entries);
  write(answerFile, answers);
  return { questions, answers: answerFile, funcDocs: docs };
}

const user = (content: string) => [{ role: "user", content }];

describe("held-out functions (miss_func)", () => {
  const entry = {
    id: "multi_turn_miss_func_7",
    question: [user("Add 2 and 3."), user("Now sort [3, 1, 2]."), [], user("And the mean of [1, 2]?")],
    initial_config: { MathAPI: {} },
    path: ["MathAPI.add", "MathAPI.sort_list"],
    involved_classes: ["MathAPI"],
    missed_function: { "2": ["sort_list"] },
  };
  const answer = {
    id: "multi_turn_miss_func_7",
    ground_truth: [["add(a=2, b=3)"], [], ["sort_list(numbers=[3, 1, 2])"], ["mean([1, 2])"]],
  };

  it("withholds them until their turn, whose empty user turn gets bfcl-eval's message", async () => {
    const [t] = await convertBfclTasks(synthetic([entry], [answer]));
    expect(t!.tools).toEqual(["add", "mean"]);
    expect(t!.tool_aliases).toEqual({ add: "bfcl__add", sort_list: "bfcl__sort_list", mean: "bfcl__mean" });
    expect(t!.data_source).toBe("bfcl_multi_turn_miss_func");
    expect(t!.ground_truth).toEqual([{ name: "add", arguments: { a: 2, b: 3 } }]);
    expect(t!.turns).toEqual([
      { content: "Now sort [3, 1, 2].", ground_truth: [] },
      {
        content: BFCL_HOLDOUT_TURN_MESSAGE,
        tools: ["add", "sort_list", "mean"],
        ground_truth: [{ name: "sort_list", arguments: { numbers: [3, 1, 2] } }],
      },
      {
        content: "And the mean of [1, 2]?",
        ground_truth: [{ name: "mean", arguments: { numbers: [1, 2] } }],
      },
    ]);
    expect(taskSchema.safeParse(t).success).toBe(true);
  });

  it.each([
    [
      "a held-out turn that has a user message",
      { ...entry, question: [user("a"), user("b"), user("c"), user("d")] },
      answer,
      /:1: question\[2\]: a held-out turn must have no messages \(entry multi_turn_miss_func_7\)/,
    ],
    [
      "an empty turn that holds nothing back",
      { ...entry, missed_function: undefined },
      answer,
      /:1: question\[2\]: a later turn must hold exactly one non-empty user message/,
    ],
    [
      "a held-out name the classes do not have",
      { ...entry, missed_function: { "2": ["median"] } },
      answer,
      /:1: missed_function\.2: "median" is not a function of the involved classes/,
    ],
    [
      "a ground-truth string that is not a literal call",
      entry,
      { ...answer, ground_truth: [["add(a=2, b=x)"], [], [], []] },
      /answers\.json:1: ground_truth\[0\]\[0\]: cannot read "add\(a=2, b=x\)": "x" is not a literal .* at offset 11 \(entry multi_turn_miss_func_7\)/,
    ],
    [
      "a call to a function no class offers",
      entry,
      { ...answer, ground_truth: [["median(numbers=[1])"], [], [], []] },
      /answers\.json:1: ground_truth\[0\]\[0\]: "median\(numbers=\[1\]\)" calls "median", not a function of the involved classes/,
    ],
    [
      "an unknown keyword",
      entry,
      { ...answer, ground_truth: [["add(a=2, c=3)"], [], [], []] },
      /"add" has no parameter "c"/,
    ],
    [
      "too many positional arguments",
      entry,
      { ...answer, ground_truth: [["add(1, 2, 3)"], [], [], []] },
      /3 positional arguments, "add" takes 2/,
    ],
    [
      "ground truth for fewer turns than the entry has",
      entry,
      { ...answer, ground_truth: [["add(a=2, b=3)"]] },
      /answers\.json:1: ground_truth: 1 turns, but the entry \(.*BFCL_v4_multi_turn_miss_func\.json:1\) has 4/,
    ],
    [
      "an unknown class",
      { ...entry, involved_classes: ["MathAPI", "ChessAPI"] },
      answer,
      /:1: involved_classes\[1\]: unknown class "ChessAPI" \(func docs for: MathAPI\)/,
    ],
    [
      "a malformed entry",
      { ...entry, question: "Add 2 and 3." },
      answer,
      /BFCL_v4_multi_turn_miss_func\.json:1: question: /,
    ],
    [
      "an entry with no answer",
      entry,
      { ...answer, id: "multi_turn_miss_func_8" },
      /:1: id: "multi_turn_miss_func_7" has no answer in .*answers\.json/,
    ],
  ])("refuses %s, naming file, line and field", async (_what, e, a, message) => {
    await expect(convertBfclTasks(synthetic([e], [a]))).rejects.toThrow(message);
  });

  it("names the line of the bad entry, not the first", async () => {
    const second = { ...entry, id: "multi_turn_miss_func_8", involved_classes: ["ChessAPI"] };
    await expect(
      convertBfclTasks(synthetic([entry, second], [answer, { ...answer, id: "multi_turn_miss_func_8" }])),
    ).rejects.toThrow(/BFCL_v4_multi_turn_miss_func\.json:2: involved_classes\[0\]/);
  });
});

describe("long_context entries", () => {
  const entry = (id: string) => ({
    id,
    question: [user("Add 2 and 3.")],
    initial_config: { MathAPI: {} },
    involved_classes: ["MathAPI"],
  });
  const answer = (id: string) => ({ id, ground_truth: [["add(a=2, b=3)"]] });

  it("say long_context: true in their episode config (bfcl-eval's rule: long_context or composite); others do not", async () => {
    const ids = ["multi_turn_long_context_3", "multi_turn_composite_1", "multi_turn_base_9"];
    const tasks = await convertBfclTasks(synthetic(ids.map(entry), ids.map(answer)));
    expect(tasks.map((t) => [t.id, t.environment.config])).toEqual([
      [ids[0], { involved_classes: ["MathAPI"], initial_config: { MathAPI: {} }, long_context: true }],
      [ids[1], { involved_classes: ["MathAPI"], initial_config: { MathAPI: {} }, long_context: true }],
      [ids[2], { involved_classes: ["MathAPI"], initial_config: { MathAPI: {} } }],
    ]);
    for (const t of tasks) expect(taskSchema.safeParse(t).success).toBe(true);
  });
});

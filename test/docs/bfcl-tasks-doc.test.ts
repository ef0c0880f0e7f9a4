// docs/environments.md "BFCL tasks": the field table names every field `rlf data bfcl` writes, the
// held-out turn's message is bfcl-eval's as the converter writes it, and the commands it shows exist.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BFCL_HOLDOUT_TURN_MESSAGE, convertBfclTasks } from "@rlfactory/rollout";
import { SIMULATE_LLM_USAGE } from "@rlfactory/simulators/llm/command";
import { codeSpans, markdownTable, readDoc } from "@rlfactory/test-support/markdown";
import { describe, expect, it } from "vitest";

const doc = readDoc("docs/environments.md");
const section = doc.slice(doc.indexOf("## BFCL tasks"));

describe("docs/environments.md: BFCL tasks", () => {
  it("lists every top-level and turn field the converter writes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bfcl-doc-"));
    mkdirSync(join(dir, "multi_turn_func_doc"));
    const add = { name: "add", parameters: { type: "dict", properties: { a: {}, b: {} } } };
    writeFileSync(join(dir, "multi_turn_func_doc", "math_api.json"), `${JSON.stringify(add)}\n`);
    const entry = {
      id: "multi_turn_miss_func_0",
      question: [[{ role: "user", content: "Add 1 and 2." }], []],
      initial_config: {},
      path: ["MathAPI.add"],
      involved_classes: ["MathAPI"],
      excluded_function: [],
      missed_function: { "1": ["add"] },
    };
    writeFileSync(join(dir, "q.json"), `${JSON.stringify(entry)}\n`);
    writeFileSync(
      join(dir, "a.json"),
      `${JSON.stringify({ id: entry.id, ground_truth: [[], ["add(1, 2)"]] })}\n`,
    );
    const [task] = await convertBfclTasks({
      questions: join(dir, "q.json"),
      answers: join(dir, "a.json"),
      funcDocs: join(dir, "multi_turn_func_doc"),
    });
    const documented = new Set(markdownTable(section, "field").flatMap((r) => codeSpans(r.field!)));
    documented.add("data_source"); // described in the `id` row
    const written = [
      ...Object.keys(task!).filter((k) => k !== "turns"), // documented field by field
      ...Object.keys(task!.turns[0]!).map((k) =>
        k === "content" || k === "ground_truth" ? `turns[i].${k}` : `turns[].${k}`,
      ),
    ];
    expect(written.filter((f) => !documented.has(f))).toEqual([]);
    expect(task!.turns[0]!.content).toBe(BFCL_HOLDOUT_TURN_MESSAGE);
    expect(section.replace(/\s+/g, " ")).toContain(`\`${BFCL_HOLDOUT_TURN_MESSAGE}\``);
  });

  it("shows commands and flags that exist", () => {
    expect(section).toContain(
      "rlf data bfcl --in FILE --answers FILE --out TASKS.jsonl [--func-docs DIR] [--server NAME]",
    );
    expect(section.replace(/\s+/g, " ")).toContain("rlf-sim llm --policy replay --tasks TASKS.jsonl");
    expect(SIMULATE_LLM_USAGE).toContain("--tasks FILE");
    expect(SIMULATE_LLM_USAGE).toMatch(/^\s+replay\s/m);
  });
});

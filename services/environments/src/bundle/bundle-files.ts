// The bundle's content as files (path → text), and the checks every bundle passes: shared by the
// writer (which serialises) and the reader (which checks what it parsed).

import { BundleError } from "./bundle-error.ts";
import { compareCodeUnits } from "./bundle-hash.ts";
import { type BundleContent, type BundleTask, TABLE_NAME, TOOL_NAME } from "./bundle-schema.ts";
import { JsonText } from "./json-text.ts";

/** 2-space JSON with a final newline, keys in the order given. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** A task with its keys in the format's order (absent fields left out). */
export function orderedTask(task: BundleTask): BundleTask {
  const out: BundleTask = { id: task.id, tools: [...task.tools] };
  if (task.question !== undefined) out.question = task.question;
  if (task.instruction !== undefined) out.instruction = task.instruction;
  if (task.unsolved_set !== undefined) out.unsolved_set = task.unsolved_set;
  if (task.answer !== undefined) out.answer = task.answer;
  if (task.actions !== undefined)
    out.actions = task.actions.map((a) => ({ name: a.name, arguments: a.arguments }));
  if (task.complexity !== undefined) {
    const c = task.complexity;
    out.complexity = {
      structure: c.structure,
      hops: c.hops,
      parallel: c.parallel,
      tools: c.tools,
      distractors: c.distractors,
      parameter_types: [...c.parameter_types],
    };
  }
  return out;
}

/** Every file of the bundle but manifest.json, path → text, in path order. */
export function bundleFiles(content: BundleContent): Record<string, string> {
  checkContent(content);
  const files: Record<string, string> = {};
  const tools = [...content.tools].sort((a, b) => compareCodeUnits(a.name, b.name));
  files["tools.json"] = jsonText(
    tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
  );
  for (const tool of tools) files[`code/${tool.name}.py`] = content.code[tool.name] as string;
  for (const [table, value] of Object.entries(content.data ?? {})) {
    // a table kept as text (an imported file, a bundle read back) is written byte for byte
    files[`data/${table}.json`] = value instanceof JsonText ? value.text : jsonText(value);
  }
  const tasks = [...content.tasks].sort((a, b) => compareCodeUnits(a.id, b.id));
  files["tasks.jsonl"] = tasks.map((t) => `${JSON.stringify(orderedTask(t))}\n`).join("");
  if (content.validation !== undefined) files["validation.json"] = jsonText(content.validation);
  const sorted: Record<string, string> = {};
  for (const path of Object.keys(files).sort(compareCodeUnits)) sorted[path] = files[path] as string;
  return sorted;
}

/** The cross-file rules: unique names, one code file per tool, tasks naming only the bundle's tools. */
export function checkContent(content: BundleContent): void {
  const names = new Set<string>();
  for (const tool of content.tools) {
    if (!TOOL_NAME.test(tool.name)) {
      throw new BundleError(`tools.json: tool name "${tool.name}" is not a Python identifier`, "tools.json");
    }
    if (names.has(tool.name))
      throw new BundleError(`tools.json: tool "${tool.name}" is listed twice`, "tools.json");
    names.add(tool.name);
    if (typeof content.code[tool.name] !== "string") {
      throw new BundleError(
        `code/${tool.name}.py: missing (every tool has its code)`,
        `code/${tool.name}.py`,
      );
    }
  }
  for (const name of Object.keys(content.code)) {
    if (!names.has(name)) {
      throw new BundleError(`code/${name}.py: no tool "${name}" in tools.json`, `code/${name}.py`);
    }
  }
  if (content.form === "sample" && content.data !== undefined && Object.keys(content.data).length > 0) {
    throw new BundleError('data/: only a bundle of form "environment" has a database', "data/");
  }
  for (const table of Object.keys(content.data ?? {})) {
    if (!TABLE_NAME.test(table)) {
      throw new BundleError(
        `data/${table}.json: a table name is letters, digits, "_", "." and "-"`,
        `data/${table}.json`,
      );
    }
  }
  const ids = new Set<string>();
  for (const task of content.tasks) {
    if (ids.has(task.id))
      throw new BundleError(`tasks.jsonl: task id "${task.id}" appears twice`, "tasks.jsonl");
    ids.add(task.id);
    for (const tool of task.tools) {
      if (!names.has(tool)) {
        throw new BundleError(
          `tasks.jsonl: task "${task.id}" offers tool "${tool}", not in tools.json`,
          "tasks.jsonl",
        );
      }
    }
    for (const action of task.actions ?? []) {
      if (!names.has(action.name)) {
        throw new BundleError(
          `tasks.jsonl: task "${task.id}" has an action calling "${action.name}", not in tools.json`,
          "tasks.jsonl",
        );
      }
    }
  }
}

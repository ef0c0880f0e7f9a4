// `rlf env import-ftrl`: FTRL's published formats, unchanged, as an environment bundle.
//  - a per-sample file (JSON Lines, or a JSON array, of {messages, tools, codes, unsolved_set, answer?})
//    → form "sample": the rows' tools (each `def name(**arguments)`), one bundle task per row;
//  - an environment directory (tools.json, codes.json with `def name(data, ...)`, and the database:
//    every other *.json file, one table per file name) → form "environment", with the τ-bench-style
//    tasks of `tasks` ({instruction, actions}) as bundle tasks.
import { readdirSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, extname, join, resolve } from "node:path";
import { compareCodeUnits } from "../bundle/bundle-hash.ts";
import {
  type BundleContent,
  type BundleTask,
  type BundleTool,
  ComplexitySchema,
  TABLE_NAME,
} from "../bundle/bundle-schema.ts";
import { JsonText } from "../bundle/json-text.ts";
import { FtrlFormatError } from "./ftrl-error.ts";
import {
  type FtrlRow,
  ftrlAnswer,
  ftrlMessages,
  ftrlRowKind,
  ftrlTaskId,
  jsonField,
  readFtrlActions,
  readFtrlCodes,
  readFtrlRows,
  readFtrlTools,
  readUnsolvedSet,
  sampleToolKey,
} from "./ftrl-rows.ts";

export interface FtrlImportOptions {
  /** The bundle's name (default: PATH's base name without extension). */
  name?: string;
  /** Environment form: a file of τ-bench-style tasks ({instruction, actions}) for this environment. */
  tasks?: string;
  /** Keep only the task rows whose `data_source` is this (FTRL's tau-bench.jsonl mixes environments). */
  dataSource?: string;
}

/** Reads an FTRL per-sample file or environment directory as a bundle's content; throws FtrlFormatError. */
export async function importFtrl(path: string, options: FtrlImportOptions = {}): Promise<BundleContent> {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new FtrlFormatError(`${path}: no such file or directory`);
  }
  const name = options.name ?? basename(resolve(path), isDir ? "" : extname(path));
  if (isDir) return importEnvironment(path, name, options);
  if (options.tasks !== undefined)
    throw new FtrlFormatError(`--tasks is for an environment directory; ${path} is a per-sample file`);
  return importSamples(path, name, options);
}

function filtered(rows: FtrlRow[], dataSource: string | undefined): FtrlRow[] {
  return dataSource === undefined ? rows : rows.filter((r) => r.row.data_source === dataSource);
}

function complexityOf(row: Record<string, unknown>, where: string): BundleTask["complexity"] {
  if (row.complexity === undefined || row.complexity === null) return undefined;
  const parsed = ComplexitySchema.safeParse(jsonField(row, "complexity", where));
  if (!parsed.success)
    throw new FtrlFormatError(
      `${where}: complexity: ${parsed.error.issues[0]?.path.join(".")} ${parsed.error.issues[0]?.message}`,
    );
  return parsed.data;
}

/** Adds a task; the same id twice must be the same task (identical rows are one task). */
function addTask(tasks: Map<string, BundleTask>, task: BundleTask, where: string): void {
  const known = tasks.get(task.id);
  if (known !== undefined && JSON.stringify(known) !== JSON.stringify(task))
    throw new FtrlFormatError(`${where}: task id ${task.id} is used by a different task before`);
  tasks.set(task.id, task);
}

async function importSamples(file: string, name: string, options: FtrlImportOptions): Promise<BundleContent> {
  const rows = filtered(await readFtrlRows(file), options.dataSource);
  if (rows.length === 0)
    throw new FtrlFormatError(
      `${file}: no rows${options.dataSource ? ` of data_source ${options.dataSource}` : ""}`,
    );
  // Every row's tools, by name; two rows may define different tools under one name.
  const parsed = rows.map(({ row, where }) => {
    if (ftrlRowKind(row, where) !== "sample")
      throw new FtrlFormatError(`${where}: a per-sample row needs messages, tools and codes`);
    const tools = readFtrlTools(jsonField(row, "tools", where), where);
    const codes = readFtrlCodes(jsonField(row, "codes", where), tools, where);
    return { row, where, tools, codes };
  });
  const variants = new Map<string, Map<string, { tool: BundleTool; code: string }>>();
  for (const { tools, codes } of parsed)
    for (const tool of tools) {
      const key = sampleToolKey(tool, codes[tool.name] as string);
      const byKey = variants.get(tool.name) ?? new Map();
      byKey.set(key, { tool, code: codes[tool.name] as string });
      variants.set(tool.name, byKey);
    }
  const bundleName = sampleToolNamer(variants);
  const tools = new Map<string, BundleTool>();
  const code: Record<string, string> = {};
  for (const [toolName, byKey] of variants)
    for (const [key, v] of byKey) {
      const named = bundleName(toolName, key);
      if (tools.has(named)) throw new FtrlFormatError(`${file}: two tools would both be named ${named}`);
      tools.set(named, { ...v.tool, name: named });
      // a renamed tool's file defines its bundle name too (FTRL's source itself is unchanged)
      code[named] = named === toolName ? v.code : `${v.code.trimEnd()}\n\n\n${named} = ${toolName}\n`;
    }
  const tasks = new Map<string, BundleTask>();
  for (const { row, where, tools: rowTools, codes } of parsed) {
    const names = new Map(
      rowTools.map((t) => [t.name, bundleName(t.name, sampleToolKey(t, codes[t.name] as string))]),
    );
    const unsolved = readUnsolvedSet(row, new Set(names.keys()), where);
    const messages = ftrlMessages(row, where);
    const question = messages.find((m) => m.role === "user")?.content;
    const answer = ftrlAnswer(row, where);
    const complexity = complexityOf(row, where);
    const task: BundleTask = { id: ftrlTaskId(row), tools: [...names.values()] };
    if (question !== undefined) task.question = question;
    if (unsolved !== undefined)
      task.unsolved_set = Object.fromEntries(
        Object.entries(unsolved).map(([t, a]) => [names.get(t) as string, a]),
      );
    if (answer !== undefined) task.answer = answer;
    if (complexity !== undefined) task.complexity = complexity;
    addTask(tasks, task, where);
  }
  return {
    name,
    form: "sample",
    source: {
      kind: "ftrl-sample",
      file: basename(file),
      ...(options.dataSource ? { data_source: options.dataSource } : {}),
    },
    tools: [...tools.values()],
    code,
    tasks: [...tasks.values()],
  };
}

/**
 * The bundle name of a sample tool: its own name when every row defining that name defines the same
 * tool (schema and code); otherwise each variant is `<name>_<8 hex digits of its content hash>`.
 * Independent of row order, so a file's subset names its tools the same way.
 */
export function sampleToolNamer(
  variants: ReadonlyMap<string, ReadonlyMap<string, unknown>>,
): (name: string, key: string) => string {
  return (name, key) => ((variants.get(name)?.size ?? 1) > 1 ? `${name}_${key.slice(0, 8)}` : name);
}

async function importEnvironment(
  dir: string,
  name: string,
  options: FtrlImportOptions,
): Promise<BundleContent> {
  const readText = async (file: string): Promise<JsonText> => {
    let text: string;
    try {
      text = await readFile(join(dir, file), "utf8");
    } catch {
      throw new FtrlFormatError(
        `${join(dir, file)}: missing (an FTRL environment has tools.json, codes.json and its database files)`,
      );
    }
    try {
      return new JsonText(text);
    } catch (err) {
      throw new FtrlFormatError(`${join(dir, file)}: not JSON (${(err as Error).message})`);
    }
  };
  const readJson = async (file: string): Promise<unknown> => (await readText(file)).value();
  const tools = readFtrlTools(await readJson("tools.json"), join(dir, "tools.json"));
  const codes = readFtrlCodes(await readJson("codes.json"), tools, join(dir, "codes.json"));
  for (const tool of tools)
    if (!new RegExp(`def\\s+${tool.name}\\s*\\(\\s*data\\b`).test(codes[tool.name] as string))
      throw new FtrlFormatError(
        `${join(dir, "codes.json")}: codes.${tool.name} must be def ${tool.name}(data, ...) (the environment form)`,
      );
  const tasksFile = options.tasks === undefined ? undefined : resolve(options.tasks);
  const data: Record<string, unknown> = {};
  const tables = readdirSync(dir)
    .filter(
      (f) => f.endsWith(".json") && f !== "tools.json" && f !== "codes.json" && resolve(dir, f) !== tasksFile,
    )
    .sort(compareCodeUnits);
  for (const file of tables) {
    const table = file.slice(0, -".json".length);
    if (!TABLE_NAME.test(table))
      throw new FtrlFormatError(`${join(dir, file)}: a table name is letters, digits, "_", "." and "-"`);
    // the database file's own text: FTRL's tools read it as json.load gives it (key order, N.0 floats)
    data[table] = await readText(file);
  }
  if (tables.length === 0)
    throw new FtrlFormatError(`${dir}: no database files (*.json besides tools.json and codes.json)`);

  const toolNames = new Set(tools.map((t) => t.name));
  const tasks = new Map<string, BundleTask>();
  if (options.tasks !== undefined) {
    const rows = filtered(await readFtrlRows(options.tasks), options.dataSource);
    for (const { row, where } of rows) {
      if (ftrlRowKind(row, where) !== "instruction")
        throw new FtrlFormatError(`${where}: an environment's task is τ-bench-style: {instruction, actions}`);
      const actions = readFtrlActions(row.actions, where);
      for (const [i, a] of actions.entries())
        if (!toolNames.has(a.name))
          throw new FtrlFormatError(
            `${where}: actions[${i}] calls ${a.name}, not a tool of ${dir}${options.dataSource ? "" : " (--data-source picks one environment's rows)"}`,
          );
      const task: BundleTask = {
        id: ftrlTaskId(row),
        tools: [...toolNames].sort(compareCodeUnits),
        instruction: row.instruction as string,
        actions,
      };
      const complexity = complexityOf(row, where);
      if (complexity !== undefined) task.complexity = complexity;
      addTask(tasks, task, where);
    }
  }
  return {
    name,
    form: "environment",
    source: {
      kind: "ftrl-environment",
      directory: basename(resolve(dir)),
      ...(options.tasks !== undefined ? { tasks: basename(options.tasks) } : {}),
      ...(options.dataSource !== undefined ? { data_source: options.dataSource } : {}),
    },
    tools,
    code: codes,
    data,
    tasks: [...tasks.values()],
  };
}

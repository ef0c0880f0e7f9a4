// FTRL's published formats (arXiv 2508.08791, the bytedance/FTRL data), read without changing them:
//  - per-sample rows: {messages, tools, codes, unsolved_set, answer?, ...}, where tools, codes and
//    unsolved_set are JSON text (as FTRL stores them) or the parsed values; tools in OpenAI's
//    {type: "function", function: {name, description, parameters}} form or bare {name, ...};
//  - τ-bench-style rows: {instruction, actions: [{id, type, function: {name, arguments: JSON text}}],
//    outputs?, data_source?} (actions also as bare {name, arguments}).
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { compareCodeUnits } from "../bundle/bundle-hash.ts";
import { type BundleAction, type BundleTool, TOOL_NAME } from "../bundle/bundle-schema.ts";
import { FtrlFormatError } from "./ftrl-error.ts";

/** One row of an FTRL task file, with where it came from (for errors). */
export interface FtrlRow {
  row: Record<string, unknown>;
  where: string;
}

/** The rows of a JSON Lines file (or a JSON array), each an object. */
export async function readFtrlRows(file: string): Promise<FtrlRow[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new FtrlFormatError(`${file}: cannot read (${(err as Error).message})`);
  }
  const rows: FtrlRow[] = [];
  const push = (value: unknown, where: string) => {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new FtrlFormatError(`${where}: a row must be a JSON object`);
    rows.push({ row: value as Record<string, unknown>, where });
  };
  if (text.trimStart().startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new FtrlFormatError(`${file}: not JSON (${(err as Error).message})`);
    }
    if (!Array.isArray(parsed)) throw new FtrlFormatError(`${file}: not a list of rows`);
    for (const [i, value] of parsed.entries()) push(value, `${file} item ${i}`);
    return rows;
  }
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new FtrlFormatError(`${file} line ${i + 1}: not JSON (${(err as Error).message})`);
    }
    push(value, `${file} line ${i + 1}`);
  });
  return rows;
}

/** JSON with object keys sorted at every level: the same value, the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value as object)
      .sort(compareCodeUnits)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value);
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** A row's task id: its own `id` when it has one, else `ftrl-` + 16 hex digits of the row's content hash. */
export function ftrlTaskId(row: Record<string, unknown>): string {
  if (typeof row.id === "string" && row.id !== "") return row.id;
  return `ftrl-${sha256(canonicalJson(row)).slice(0, 16)}`;
}

/** A field FTRL stores as JSON text, or already parsed. */
export function jsonField(row: Record<string, unknown>, field: string, where: string): unknown {
  const value = row[field];
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch (err) {
    throw new FtrlFormatError(`${where}: ${field} is text but not JSON (${(err as Error).message})`);
  }
}

/** Tools in OpenAI's `{type: "function", function: {...}}` form or bare `{name, description, parameters}`. */
export function readFtrlTools(value: unknown, where: string): BundleTool[] {
  if (!Array.isArray(value)) throw new FtrlFormatError(`${where}: tools must be a list of tools`);
  const tools = value.map((entry, i) => {
    const at = `${where}: tools[${i}]`;
    if (typeof entry !== "object" || entry === null) throw new FtrlFormatError(`${at}: not an object`);
    const e = entry as Record<string, unknown>;
    const fn = (
      e.type === "function" && typeof e.function === "object" && e.function !== null ? e.function : e
    ) as Record<string, unknown>;
    if (typeof fn.name !== "string" || !TOOL_NAME.test(fn.name))
      throw new FtrlFormatError(`${at}: name must be a Python identifier (got ${JSON.stringify(fn.name)})`);
    if (fn.description !== undefined && typeof fn.description !== "string")
      throw new FtrlFormatError(`${at}: description must be text`);
    const parameters = fn.parameters ?? { type: "object", properties: {} };
    if (typeof parameters !== "object" || parameters === null || Array.isArray(parameters))
      throw new FtrlFormatError(`${at}: parameters must be a JSON Schema object`);
    return {
      name: fn.name,
      description: fn.description ?? "",
      parameters: parameters as Record<string, unknown>,
    };
  });
  const seen = new Set<string>();
  for (const t of tools) {
    if (seen.has(t.name)) throw new FtrlFormatError(`${where}: tools: ${t.name} is listed twice`);
    seen.add(t.name);
  }
  return tools;
}

/** codes: tool name → Python source defining `def <name>(...)`; every tool has one. */
export function readFtrlCodes(value: unknown, tools: BundleTool[], where: string): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new FtrlFormatError(`${where}: codes must be an object of tool name → Python source`);
  const codes = value as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const tool of tools) {
    const code = codes[tool.name];
    if (typeof code !== "string")
      throw new FtrlFormatError(`${where}: codes has no source for tool ${tool.name}`);
    if (!new RegExp(`(^|\\n)\\s*(async\\s+)?def\\s+${tool.name}\\s*\\(`).test(code))
      throw new FtrlFormatError(`${where}: codes.${tool.name} does not define def ${tool.name}(...)`);
    out[tool.name] = code;
  }
  return out;
}

/** The identity of a sample tool: its schema and code (two rows' tools with the same name may differ). */
export function sampleToolKey(tool: BundleTool, code: string): string {
  return sha256(canonicalJson({ description: tool.description, parameters: tool.parameters, code }));
}

/** A τ-bench-style row's actions as `{name, arguments}` (arguments: FTRL's JSON text, or an object). */
export function readFtrlActions(value: unknown, where: string): BundleAction[] {
  if (!Array.isArray(value)) throw new FtrlFormatError(`${where}: actions must be a list of tool calls`);
  return value.map((entry, i) => {
    const at = `${where}: actions[${i}]`;
    if (typeof entry !== "object" || entry === null) throw new FtrlFormatError(`${at}: not an object`);
    const e = entry as Record<string, unknown>;
    const fn = (typeof e.function === "object" && e.function !== null ? e.function : e) as Record<
      string,
      unknown
    >;
    if (typeof fn.name !== "string" || fn.name === "") throw new FtrlFormatError(`${at}: no function name`);
    let args: unknown = fn.arguments ?? {};
    if (typeof args === "string") {
      try {
        args = JSON.parse(args);
      } catch (err) {
        throw new FtrlFormatError(`${at}: arguments are not JSON (${(err as Error).message})`);
      }
    }
    if (typeof args !== "object" || args === null || Array.isArray(args))
      throw new FtrlFormatError(`${at}: arguments must be a JSON object`);
    return { name: fn.name, arguments: args as Record<string, unknown> };
  });
}

/** Which of FTRL's task shapes a row has. */
export function ftrlRowKind(row: Record<string, unknown>, where: string): "sample" | "instruction" {
  if (row.messages !== undefined && row.tools !== undefined && row.codes !== undefined) return "sample";
  if (typeof row.instruction === "string" && row.actions !== undefined) return "instruction";
  throw new FtrlFormatError(
    `${where}: neither a per-sample row (messages, tools, codes, unsolved_set) nor a τ-bench-style row (instruction, actions)`,
  );
}

/** A per-sample row's unsolved_set: {tool: [sub-answer, ...]} over the row's tools. */
export function readUnsolvedSet(
  row: Record<string, unknown>,
  tools: Set<string>,
  where: string,
): Record<string, string[]> | undefined {
  if (row.unsolved_set === undefined || row.unsolved_set === null) return undefined;
  const value = jsonField(row, "unsolved_set", where);
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new FtrlFormatError(`${where}: unsolved_set must be an object of tool → [sub-answer, ...]`);
  const out: Record<string, string[]> = {};
  for (const [tool, answers] of Object.entries(value as Record<string, unknown>)) {
    if (!tools.has(tool))
      throw new FtrlFormatError(`${where}: unsolved_set names ${tool}, not one of the row's tools`);
    if (!Array.isArray(answers) || answers.some((a) => typeof a !== "string" && typeof a !== "number"))
      throw new FtrlFormatError(`${where}: unsolved_set.${tool} must be a list of sub-answers (text)`);
    out[tool] = answers.map(String);
  }
  return out;
}

/** The row's first user message (the question), as text. */
export function ftrlMessages(
  row: Record<string, unknown>,
  where: string,
): { role: string; content: string }[] {
  const value = jsonField(row, "messages", where);
  if (!Array.isArray(value) || value.length === 0)
    throw new FtrlFormatError(`${where}: messages must be a non-empty list`);
  return value.map((m, i) => {
    const msg = m as Record<string, unknown>;
    if (
      typeof msg !== "object" ||
      msg === null ||
      typeof msg.role !== "string" ||
      typeof msg.content !== "string"
    )
      throw new FtrlFormatError(`${where}: messages[${i}] must be {role, content} with text content`);
    return { role: msg.role, content: msg.content };
  });
}

/** The row's answer as text (FTRL's `answer`), when it has one. */
export function ftrlAnswer(row: Record<string, unknown>, where: string): string | undefined {
  const a = row.answer;
  if (a === undefined || a === null) return undefined;
  if (typeof a === "string") return a;
  if (typeof a === "number" || typeof a === "boolean") return String(a);
  throw new FtrlFormatError(`${where}: answer must be text`);
}

// The tool-call format registry: the single source of the format names. The config's `format` enum, the
// `ToolCallFormatName` union and `TOOL_CALL_FORMAT_NAMES` all derive from `FORMATS`; adding a model
// family is its codec file plus one entry here (and its case in format-contract.test.ts, which the
// typecheck then demands). No global registration: a plain, read-only map.
import { z } from "zod";
import { hermesFormat } from "./hermes.ts";
import { llama3Format } from "./llama3.ts";
import { type SearchR1Options, searchR1Format } from "./search-r1.ts";
import type { ToolCallFormat } from "./types.ts";

/** Options of the formats that take any (today only Search-R1's); the others ignore them. */
export type ToolCallFormatOptions = SearchR1Options;

/** One registered format: a one-line summary and the factory of its codec. */
export interface ToolCallFormatEntry {
  readonly summary: string;
  create(opts: ToolCallFormatOptions): ToolCallFormat;
}

const FORMATS = {
  hermes: {
    summary: 'Hermes / Qwen3: <tool_call>{"name", "arguments"}</tool_call> blocks, <answer>…</answer>',
    create: () => hermesFormat,
  },
  "search-r1": {
    summary: "Search-R1: <search>q</search> calls one search tool, <answer>…</answer>; text observations",
    create: (opts) => searchR1Format(opts),
  },
  llama3: {
    summary: 'Llama 3.1 JSON tool calls: [<|python_tag|>]{"name", "parameters"}[; …]',
    create: () => llama3Format,
  },
} as const satisfies Record<string, ToolCallFormatEntry>;

/** A registered format's name (the config's `format`). */
export type ToolCallFormatName = keyof typeof FORMATS;

/** Every registered format, by name (read-only). */
export const toolCallFormats: { readonly [N in ToolCallFormatName]: ToolCallFormatEntry } =
  Object.freeze(FORMATS);

export const TOOL_CALL_FORMAT_NAMES = Object.freeze(Object.keys(FORMATS)) as readonly [
  ToolCallFormatName,
  ...ToolCallFormatName[],
];

/** For the config parser: a format name, checked at the boundary. */
export const toolCallFormatNameSchema = z.enum(TOOL_CALL_FORMAT_NAMES);

export function toolCallFormat(name: ToolCallFormatName, opts: ToolCallFormatOptions = {}): ToolCallFormat {
  if (!Object.hasOwn(FORMATS, name)) {
    throw new Error(`unknown tool-call format "${name}" (known: ${TOOL_CALL_FORMAT_NAMES.join(", ")})`);
  }
  return toolCallFormats[name].create(opts);
}

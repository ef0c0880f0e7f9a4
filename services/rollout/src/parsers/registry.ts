// Format by name: a plain, read-only map from the config's `format` string to a codec. No global
// registration: a new family is one codec file and one line here.
import { z } from "zod";
import { hermesFormat } from "./hermes.ts";
import { llama3Format } from "./llama3.ts";
import { type SearchR1Options, searchR1Format } from "./search-r1.ts";
import type { ToolCallFormat, ToolCallFormatName } from "./types.ts";

/** Options of the formats that take any (today only Search-R1's); the others ignore them. */
export type ToolCallFormatOptions = SearchR1Options;

const FORMATS: { readonly [N in ToolCallFormatName]: (opts: ToolCallFormatOptions) => ToolCallFormat } = {
  hermes: () => hermesFormat,
  "search-r1": (opts) => searchR1Format(opts),
  llama3: () => llama3Format,
};

export const TOOL_CALL_FORMAT_NAMES = Object.freeze(Object.keys(FORMATS) as ToolCallFormatName[]);

/** For the config parser: a format name, checked at the boundary. */
export const toolCallFormatNameSchema = z.enum(["hermes", "search-r1", "llama3"]);

export function toolCallFormat(name: ToolCallFormatName, opts: ToolCallFormatOptions = {}): ToolCallFormat {
  if (!Object.hasOwn(FORMATS, name)) {
    throw new Error(`unknown tool-call format "${name}" (known: ${TOOL_CALL_FORMAT_NAMES.join(", ")})`);
  }
  return FORMATS[name](opts);
}

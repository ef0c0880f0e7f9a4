// JSON as models write it: strict JSON first, then JSON5 (single quotes, trailing commas, unquoted keys,
// comments: what RL-Factory accepted through Python's json5), and a scanner that finds where a JSON object
// ends so that a closing tag inside a string value does not cut the object short.
import JSON5 from "json5";

export type JsonParseResult = { ok: true; value: unknown } | { ok: false; reason: string };

export function parseLenientJson(text: string): JsonParseResult {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    // not strict JSON: give JSON5 a chance, and report its (short, positioned) message
  }
  try {
    return { ok: true, value: JSON5.parse(escapeLineSeparators(text)) };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, reason: message.replace(/^JSON5:\s*/, "") };
  }
}

/**
 * JSON5 accepts raw U+2028/U+2029 in strings but writes a warning to the console for each; escape them
 * (same value) so that parsing model output stays silent. Outside strings they are whitespace: a space.
 */
function escapeLineSeparators(text: string): string {
  if (!/[\u2028\u2029]/.test(text)) return text;
  let out = "";
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\u2028" || ch === "\u2029") {
      out += quote === undefined ? " " : ch === "\u2028" ? "\\u2028" : "\\u2029";
    } else if (quote !== undefined && ch === "\\") {
      out += ch + (text[i + 1] ?? ""); // an escaped separator is a line continuation: keep it
      i++;
    } else {
      if (ch === '"' || ch === "'") quote = quote === undefined ? ch : quote === ch ? undefined : quote;
      out += ch;
    }
  }
  return out;
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Index just past the `}` that closes the object opening at `text[start]` (which must be `{`), skipping
 * brackets inside double- or single-quoted strings; `undefined` when the object is not closed. A `<`
 * outside strings (never valid JSON or JSON5: a tag such as `</tool_call>`) ends the search, which keeps
 * scanning a turn full of unclosed objects linear.
 */
export function scanJsonObjectEnd(text: string, start: number): number | undefined {
  if (text[start] !== "{") return undefined;
  let depth = 0;
  let quote: string | undefined;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (quote !== undefined) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
    } else if (ch === "<") {
      return undefined;
    } else if (ch === "{" || ch === "[") {
      depth++;
    } else if (ch === "}" || ch === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}

/** Index of the first non-whitespace character at or after `pos`. */
export function skipWhitespace(text: string, pos: number): number {
  let i = pos;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
}

// From a decoded JSON value to a tool call: the checks every JSON-call format shares (Hermes, Llama 3).
import { isJsonObject, parseLenientJson } from "./lenient-json.ts";
import { describeJson, malformedCall, oneLine } from "./malformed.ts";
import type { MalformedCall, ToolCallRequest } from "./types.ts";

export interface CallObjectShape {
  /** Keys that may hold the arguments, in order of preference (Hermes: arguments; Llama 3: parameters, arguments). */
  argumentKeys: readonly string[];
  /** An example of the expected shape, quoted in messages. */
  example: string;
}

/**
 * Validates one call body (text between the format's delimiters). Arguments may be double-encoded: a
 * JSON string holding an object is decoded (some models do this).
 */
export function parseCallBody(
  body: string,
  raw: string,
  index: number,
  shape: CallObjectShape,
): ToolCallRequest | MalformedCall {
  const n = index + 1;
  const json = body.trim();
  if (json === "") {
    return malformedCall("INVALID_JSON", `tool call ${n} is empty; write ${shape.example}`, raw, index);
  }
  const parsed = parseLenientJson(json); // positions in messages count from the JSON's first character
  if (!parsed.ok) {
    return malformedCall("INVALID_JSON", `tool call ${n} is not valid JSON: ${parsed.reason}`, raw, index);
  }
  const value = parsed.value;
  if (!isJsonObject(value)) {
    const msg = `tool call ${n} must be a JSON object like ${shape.example}, got ${describeJson(value)}`;
    return malformedCall("NOT_AN_OBJECT", msg, raw, index);
  }
  const name = value.name;
  if (typeof name !== "string" || name.trim() === "") {
    const got = name === undefined ? "none" : describeJson(name);
    const msg = `tool call ${n} needs a "name" that is a non-empty string (got ${got})`;
    return malformedCall("MISSING_NAME", msg, raw, index);
  }
  const label = `tool call ${n} (${oneLine(name, 60)})`;
  const key = shape.argumentKeys.find((k) => Object.hasOwn(value, k));
  if (key === undefined) {
    const keys = shape.argumentKeys.map((k) => `"${k}"`).join(" or ");
    return malformedCall("MISSING_ARGUMENTS", `${label} has no ${keys} object; use {} for none`, raw, index);
  }
  const args = decodeArguments(value[key]);
  if (args === undefined) {
    const msg = `${label}: "${key}" must be a JSON object, got ${describeJson(value[key])}`;
    return malformedCall("ARGUMENTS_NOT_OBJECT", msg, raw, index);
  }
  return { name, arguments: args, raw, index };
}

function decodeArguments(value: unknown): Record<string, unknown> | undefined {
  if (isJsonObject(value)) return value;
  if (typeof value !== "string") return undefined;
  const inner = parseLenientJson(value);
  return inner.ok && isJsonObject(inner.value) ? inner.value : undefined;
}

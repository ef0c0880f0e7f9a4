// One line naming the offending field, for a tool call whose arguments fail validation.
import type { z } from "zod";

function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

export function argumentErrorMessage(toolName: string, error: z.ZodError): string {
  const [first, ...rest] = error.issues;
  if (first === undefined) return `Invalid arguments for tool ${toolName}`;
  const field = fieldPath(first.path);
  const message = first.message.replace(/^Invalid input: /, "");
  const detail = /received undefined$/.test(message)
    ? `${field || "arguments"} is required`
    : `${field || "arguments"}: ${message}`;
  const more =
    rest.length > 0 ? ` (and ${rest.length} more ${rest.length === 1 ? "problem" : "problems"})` : "";
  return `Invalid arguments for tool ${toolName}: ${detail}${more}`;
}

// JSON written as Python's `json.dumps(x, ensure_ascii=False)` writes it (", " and ": " separators): how
// vLLM's tool parsers return a call's `arguments`, and how Qwen3 writes them, so an agent that sends the
// arguments back unchanged renders the same text the model sampled.
export function pythonJsonDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const body = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pythonJsonDumps(v)}`)
      .join(", ");
    return `{${body}}`;
  }
  return JSON.stringify(value) ?? "null";
}

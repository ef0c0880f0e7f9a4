// docs/environment-factory.md lists every build config key with its default, every stage file and
// every validation failure reason; each list is checked against the code.
import { buildConfigSchema, FAILURE_REASONS, parseBuildConfig, STAGES } from "@rlfactory/factory";
import { codeSpans, markdownTable, readDoc } from "@rlfactory/test-support/markdown";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";

const doc = readDoc("docs/environment-factory.md");

/** Every leaf key path of an object schema (objects recursed into, through defaults and optionals). */
function leafKeys(schema: z.ZodType, prefix = ""): string[] {
  let s = schema as unknown as {
    def: { type: string; innerType?: unknown };
    shape?: Record<string, z.ZodType>;
  };
  while (s.def.type === "default" || s.def.type === "optional") s = s.def.innerType as typeof s;
  if (s.def.type !== "object" || s.shape === undefined) return [prefix];
  return Object.entries(s.shape).flatMap(([k, v]) => leafKeys(v, prefix ? `${prefix}.${k}` : k));
}

function valueAt(obj: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], obj);
}

describe("docs/environment-factory.md", () => {
  const rows = markdownTable(doc, "key").map((r) => ({ key: codeSpans(r.key!)[0]!, def: r.default!.trim() }));

  it("lists every config key, and no other", () => {
    expect(rows.map((r) => r.key).sort()).toEqual(leafKeys(buildConfigSchema).sort());
  });

  it("gives each key the default the schema fills in", () => {
    const parsed = parseBuildConfig({
      endpoint: { base_url: "http://127.0.0.1:8000/v1", model: "m" },
      input: { scenarios: ["x"] },
    });
    for (const { key, def } of rows) {
      const value = valueAt(parsed, key);
      // Required keys, keys without a default, and the input this minimal config had to give.
      if (def === "(required)" || value === undefined || key.startsWith("input.")) continue;
      if (def === "all four") expect((value as unknown[]).length, key).toBe(4);
      else if (/^`[^`]*`$/.test(def)) expect(value, key).toEqual(parseYaml(codeSpans(def)[0]!));
      else throw new Error(`${key}: default "${def}" is neither a value nor known words`);
    }
  });

  it("names every stage file and every validation failure reason", () => {
    const files = markdownTable(doc, "file").map((r) => codeSpans(r.file!)[0]);
    expect(files).toEqual(STAGES.map(([, file]) => file));
    const reasons = markdownTable(doc, "reason on failure").map((r) => codeSpans(r["reason on failure"]!)[0]);
    expect(new Set(reasons)).toEqual(new Set(FAILURE_REASONS));
  });
});

// docs/rollout.md states how a trajectory can end and every config key's default; both are checked
// against the code (the trajectory schema, the config's zod defaults).
import { parseRolloutConfig, trajectoryStatusSchema } from "@rlfactory/rollout";
import { codeSpans, markdownTable, readDoc } from "@rlfactory/test-support/markdown";
import { describe, expect, it } from "vitest";

const doc = readDoc("docs/rollout.md");

/** The smallest valid config: only what the table marks (required). */
const REQUIRED = {
  inference: { engine: "vllm", urls: ["http://127.0.0.1:8000"] },
  gateway: { address: "127.0.0.1:50051" },
  reward: { components: [{ type: "exact_match" }] },
};
const defaults = parseRolloutConfig(structuredClone(REQUIRED)) as unknown as Record<string, unknown>;

function valueAt(obj: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], obj);
}

/** Defaults the table gives in words, and what each means in the parsed config. */
const IN_WORDS: Record<string, (value: unknown) => boolean> = {
  "first of /v1/models": (v) => v === undefined, // asked of the server at start
  "whole catalog": (v) => v === undefined,
  "template default": (v) => v === undefined,
  none: (v) => Array.isArray(v) && v.length === 0,
  yes: (v) => v === true,
  "no check": (v) => (v as { max_staleness?: number }).max_staleness === undefined,
  "T 1, top-p 1, 1024": (v) => {
    const s = v as { temperature: number; top_p: number; max_tokens: number };
    return s.temperature === 1 && s.top_p === 1 && s.max_tokens === 1024;
  },
};

describe("docs/rollout.md", () => {
  it("lists every trajectory status in its table of how a trajectory ends", () => {
    const statuses = markdownTable(doc, "`status`").map((r) => codeSpans(r["`status`"]!)[0]);
    expect(new Set(statuses)).toEqual(new Set(trajectoryStatusSchema.options));
  });

  it("gives each config key the default the config schema fills in", () => {
    const rows = markdownTable(doc, "key");
    expect(rows.length).toBeGreaterThan(20);
    for (const row of rows) {
      const key = codeSpans(row.key!)[0]!;
      const stated = row.default!;
      const actual = valueAt(defaults, key);
      if (stated === "(required)") {
        const without = structuredClone(REQUIRED) as Record<string, Record<string, unknown>>;
        const [section, field] = key.split(".");
        if (field === undefined) delete without[section!];
        else delete without[section!]![field];
        expect(() => parseRolloutConfig(without), key).toThrow();
      } else if (stated === "—") {
        expect(actual, key).toBeUndefined();
      } else if (/^[\d.e-]+$/.test(stated)) {
        expect(actual, key).toBe(Number(stated));
      } else if (/^`[^`]+`$/.test(stated)) {
        const value = codeSpans(stated)[0];
        // `format` parses to `{ name, search_tool }`
        expect(typeof actual === "object" ? (actual as { name: string }).name : actual, key).toBe(value);
      } else {
        const check = IN_WORDS[stated];
        expect(check, `${key}: how to check the default "${stated}"`).toBeDefined();
        expect(check?.(actual), `${key}: ${stated}`).toBe(true);
      }
    }
  });

  it("gives the advantage epsilon the config schema fills in", () => {
    const row = markdownTable(doc, "key").find((r) => r.key === "`advantage.mode`");
    const epsilon = /`advantage\.epsilon` ([\d.e-]+)/.exec(row?.meaning ?? "")?.[1];
    expect(Number(epsilon)).toBe(valueAt(defaults, "advantage.epsilon"));
  });
});

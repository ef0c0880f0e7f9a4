// services/train/src/README.md gives every `tinker` and `train` key's default; each is checked against
// what the config schema fills in.

import { codeSpans, markdownTable, readDoc } from "@rlfactory/test-support/markdown";
import { adamSectionSchema, tinkerSectionSchema, trainSectionSchema } from "@rlfactory/train";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";

const doc = readDoc("services/train/src/README.md");

/** Checks every row of the table headed `key` after `### section` against `schema` parsed from `minimal`. */
function checkDefaults(
  section: string,
  schema: z.ZodType,
  minimal: Record<string, unknown>,
  inWords: Record<string, (value: unknown) => boolean>,
) {
  const from = doc.indexOf(`### \`${section}\``);
  expect(from, section).toBeGreaterThan(-1);
  const body = doc.indexOf("\n", from);
  const next = doc.slice(body).search(/^#{2,3} /m);
  const text = next < 0 ? doc.slice(body) : doc.slice(body, body + next);
  const rows = markdownTable(text, "key");
  const defaults = schema.parse(minimal) as Record<string, unknown>;
  const keys = rows.map((r) => codeSpans(r.key!)[0]!);
  for (const row of rows) {
    const key = codeSpans(row.key!)[0]!;
    const stated = row.default!;
    if (stated === "required") {
      const { [key]: _, ...without } = minimal;
      expect(schema.safeParse(without).success, `${section}.${key} is required`).toBe(false);
    } else if (stated === "—") {
      expect(defaults[key], `${section}.${key}`).toBeUndefined();
    } else if (/^[\d.e-]+$/.test(stated)) {
      expect(defaults[key], `${section}.${key}`).toBe(Number(stated));
    } else if (stated === "true" || stated === "false") {
      expect(defaults[key], `${section}.${key}`).toBe(stated === "true");
    } else if (/^`[^`]+`$/.test(stated)) {
      const code = codeSpans(stated)[0]!;
      expect(defaults[key], `${section}.${key}`).toEqual(code.startsWith("{") ? parseYaml(code) : code);
    } else {
      const check = inWords[stated];
      expect(check, `${section}.${key}: how to check the default "${stated}"`).toBeDefined();
      expect(check?.(defaults[key]), `${section}.${key}: ${stated}`).toBe(true);
    }
  }
  return keys;
}

describe("services/train/src/README.md", () => {
  it("gives each `tinker` key the default the schema fills in", () => {
    const keys = checkDefaults(
      "tinker",
      tinkerSectionSchema,
      { base_url: "http://127.0.0.1:8000", base_model: "m" },
      {
        // base_model may be left out when model_id names the model to train
        "required\\*": (v) =>
          v === "m" &&
          !tinkerSectionSchema.safeParse({ base_url: "http://127.0.0.1:8000" }).success &&
          tinkerSectionSchema.safeParse({ base_url: "http://127.0.0.1:8000", model_id: "x" }).success,
        "tokenizer's EOS ids": (v) => v === undefined, // resolved from the tokenizer at run time
      },
    );
    expect(new Set(keys)).toEqual(new Set(Object.keys(tinkerSectionSchema.shape)));
  });

  it("gives each `train` key the default the schema fills in", () => {
    const keys = checkDefaults("train", trainSectionSchema, { steps: 1, tasks_per_step: 1 }, {});
    expect(new Set(keys)).toEqual(new Set(Object.keys(trainSectionSchema.shape)));
    // `adam`'s optional grad_clip_norm is named in words, not in the default
    expect(Object.keys(adamSectionSchema.shape)).toContain("grad_clip_norm");
  });
});

// services/judge/README.md states the judge's failure codes with their HTTP statuses and its config
// defaults; both are checked against the code (the error-code enum and HTTP_STATUS, the config schema).
import { HTTP_STATUS, judgeErrorCodeSchema, parseJudgeConfig } from "@rlfactory/judge";
import { codeSpans, fencedBlockAfter, markdownTable, readDoc } from "@rlfactory/test-support/markdown";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";

const doc = readDoc("services/judge/README.md");

function leaves(value: unknown, prefix = ""): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value))
      for (const [p, l] of leaves(v, `${prefix}${k}.`)) out.set(p, l);
  } else {
    out.set(prefix.slice(0, -1), value);
  }
  return out;
}

describe("services/judge/README.md", () => {
  it("lists every failure code with the HTTP status the server answers it with", () => {
    const rows = markdownTable(doc, "Code").map((r) => [codeSpans(r.Code!)[0], Number(r.HTTP)]);
    expect(Object.fromEntries(rows)).toEqual(HTTP_STATUS);
    expect(rows.map(([code]) => code)).toEqual(judgeErrorCodeSchema.options);
  });

  it("shows the config schema's defaults in its example (all but the backend's address and the rubrics)", () => {
    const example = parseYaml(fencedBlockAfter(doc, "## Configuration (`--config FILE`, YAML)", "yaml")) as {
      backend: Record<string, unknown>;
      rubrics: unknown;
    };
    expect(() => parseJudgeConfig(example)).not.toThrow();
    const { base_urls, base_url, model, api_key_env, ...backendDefaults } = example.backend;
    const stated = leaves({ ...example, rubrics: undefined, backend: backendDefaults });
    const saved = process.env.RLF_REDIS_URL;
    delete process.env.RLF_REDIS_URL;
    const parsed = parseJudgeConfig({ backend: { base_url: "http://127.0.0.1:8000/v1", model: "m" } });
    if (saved !== undefined) process.env.RLF_REDIS_URL = saved;
    const { base_urls: _u, model: _m, ...backend } = parsed.backend!;
    const actual = leaves({ ...parsed, rubrics: undefined, backend });
    // The redis URL's default depends on the environment: the comment says so in words.
    expect(actual.get("cache.redis_url")).toBe("redis://127.0.0.1:6379");
    actual.delete("cache.redis_url");
    expect(Object.fromEntries(stated)).toEqual(Object.fromEntries(actual));
  });
});

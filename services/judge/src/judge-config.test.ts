import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { judgeConfigFromEnv, loadJudgeConfig, parseJudgeConfig } from "./judge-config.ts";

describe("judge config", () => {
  it("defaults: no backend, memory cache, one retry each, one deterministic sample", () => {
    const c = parseJudgeConfig({});
    expect(c.backend).toBeUndefined();
    expect(c.cache).toMatchObject({ backend: "memory", max_entries: 10_000, ttl_ms: 86_400_000 });
    expect(c.retries).toEqual({ parse: 1, count: 1 });
    expect(c.defaults).toEqual({ samples: 1, sampling: { temperature: 0, max_tokens: 512 } });
  });

  it("loads YAML with a backend and rubrics", async () => {
    const dir = mkdtempSync(join(tmpdir(), "judge-config-"));
    const file = join(dir, "judge.yaml");
    writeFileSync(
      file,
      [
        "backend:",
        "  base_url: http://127.0.0.1:8000/v1",
        "  model: qwen-judge",
        "rubrics:",
        "  helpful: { version: 2, text: Is it helpful?, scale: { min: 0, max: 5 } }",
        "cache: { backend: redis, redis_url: 'redis://127.0.0.1:6390' }",
        "retries: { parse: 2 }",
      ].join("\n"),
    );
    const c = await loadJudgeConfig(file);
    expect(c.backend?.base_urls).toEqual(["http://127.0.0.1:8000"]);
    expect(c.rubrics.helpful).toEqual({ version: 2, text: "Is it helpful?", scale: { min: 0, max: 5 } });
    expect(c.cache.redis_url).toBe("redis://127.0.0.1:6390");
    expect(c.retries).toEqual({ parse: 2, count: 1 });
  });

  it("bad config names the problem", async () => {
    expect(() =>
      parseJudgeConfig({ rubrics: { x: { version: 1, text: "t", scale: { min: 5, max: 1 } } } }),
    ).toThrow(/scale/);
    expect(() => parseJudgeConfig({ cache: { backend: "disk" } })).toThrow(/cache/);
    await expect(loadJudgeConfig("/nonexistent/judge.yaml")).rejects.toThrow(/cannot read/);
  });

  it("from the environment: JUDGE_BASE_URL / JUDGE_MODEL / JUDGE_API_KEY", () => {
    expect(judgeConfigFromEnv({}).backend).toBeUndefined();
    const c = judgeConfigFromEnv({
      JUDGE_BASE_URL: "http://127.0.0.1:8000/v1",
      JUDGE_MODEL: "m",
      JUDGE_API_KEY: "k",
    });
    expect(c.backend).toMatchObject({
      base_urls: ["http://127.0.0.1:8000"],
      model: "m",
      api_key_env: "JUDGE_API_KEY",
    });
    expect(JSON.stringify(c)).not.toContain('"k"');
    expect(() => judgeConfigFromEnv({ JUDGE_BASE_URL: "http://127.0.0.1:8000" })).toThrow(/JUDGE_MODEL/);
  });
});

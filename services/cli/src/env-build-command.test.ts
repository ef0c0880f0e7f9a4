// `rlf env build` as a process, against the scripted OpenAI-compatible fixture (test/support
// factory-chat-fixture) and the real sandbox: the bundle, task file and summary; a build killed with
// SIGKILL mid-stage (after the fixture has answered K requests) and run again ends with the bundle hash
// of an uninterrupted build; the example config (examples/env-build.yaml) builds.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { taskSchema } from "@rlfactory/contracts";
import { readBundle } from "@rlfactory/environments";
import {
  type FactoryChatFixture,
  startFactoryChatFixture,
} from "@rlfactory/simulators/factory/factory-chat-model";
import { RLF, ROOT } from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";

const SEEDS = join(ROOT, "test/fixtures/factory/seed-questions.jsonl");

function haveBubblewrap(): boolean {
  const probe = spawnSync("bwrap", [
    ...["--unshare-all", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib"],
    ...["--symlink", "usr/lib64", "/lib64", "/usr/bin/python3", "-c", "pass"],
  ]);
  if (probe.status === 0) return true;
  const message = `rlf env build: bubblewrap cannot start a sandbox here (${probe.error?.message ?? probe.stderr?.toString().trim()})`;
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

const BWRAP = haveBubblewrap();

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `rlf env build` to its end; `onSpawn` gets the process (a test arms its kill with it). */
async function build(configPath: string, out: string, onSpawn?: (child: ChildProcess) => void): Promise<Run> {
  const args = ["env", "build", "--config", configPath, ...(out === "" ? [] : ["--out", out])];
  const child: ChildProcess = spawn(process.execPath, [RLF, ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  onSpawn?.(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => {
    stdout += d;
  });
  child.stderr?.on("data", (d) => {
    stderr += d;
  });
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done) =>
    child.on("close", (c, s) => done([c, s])),
  );
  return { code, signal, stdout, stderr };
}

function lines(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function writeConfig(dir: string, baseUrl: string): string {
  const path = join(dir, "build.yaml");
  writeFileSync(
    path,
    stringifyYaml({
      name: "fixture-env",
      endpoint: { base_url: baseUrl, model: "factory-chat-fixture" },
      concurrency: 3,
      seed: 7,
      input: {
        tasks: [{ path: SEEDS }],
        scenarios: ["A regional library lends e-books and tracks overdue fees."],
      },
      validation: { timeout_ms: 500, memory_mb: 256 },
      output: { source: { fixture: true } },
    }),
  );
  return path;
}

describe("rlf env build: usage and config errors", () => {
  it("needs --config and --out (exit 2, with the usage)", async () => {
    const run = await build(join(ROOT, "examples/env-build.yaml"), "");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("rlf env build needs --config and --out");
  });

  it("names the bad keys of a config (exit 1)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rlf-env-build-bad-"));
    try {
      const path = join(dir, "bad.yaml");
      writeFileSync(
        path,
        stringifyYaml({
          endpoint: { base_url: "nowhere", model: "m" },
          input: { scenarios: ["x"] },
          structures: ["triple_hop"],
        }),
      );
      const run = await build(path, join(dir, "out"));
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`invalid build config ${path}`);
      expect(run.stderr).toContain("endpoint.base_url");
      expect(run.stderr).toContain("structures[0]");
      expect(existsSync(join(dir, "out"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!BWRAP)("rlf env build", () => {
  let work: string;
  let fixture: FactoryChatFixture;
  /** The fixture's kill trigger: set per run, fired after the K-th answer. */
  let trigger: { at: number; base: number; kill?: () => void } | undefined;
  let config: string;
  let full: { run: Run; hash: string; requests: number };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "rlf-env-build-cli-"));
    fixture = await startFactoryChatFixture({
      onAnswered: (n) => {
        if (trigger && n - trigger.base === trigger.at) trigger.kill?.();
      },
    });
    config = writeConfig(work, fixture.baseUrl);
    const before = fixture.requests.length;
    const run = await build(config, join(work, "full"));
    const bundle = await readBundle(join(work, "full/bundle"));
    full = { run, hash: bundle.hash, requests: fixture.requests.length - before };
  }, 120_000);

  afterAll(async () => {
    await fixture?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("builds a bundle whose every tool passed validation, a task file, and a summary", async () => {
    expect(full.run.code).toBe(0);
    expect(full.run.stdout).toContain("rlf env build fixture-env (model factory-chat-fixture)");
    expect(full.run.stdout).toMatch(
      /validation: \d+ tools checked, \d+ passed, 5 repaired, 1 dropped \(file_access 1\)/,
    );
    expect(full.run.stdout).toContain(`bundle: bundle (11 tasks,`);
    expect(full.run.stdout).toContain(full.hash);
    expect(full.run.stdout).toMatch(/tokens: \d+ prompt \+ \d+ completion = \d+ in \d+ requests/);
    // The summary's stage table: items per stage and rejects by reason.
    expect(full.run.stdout).toMatch(/decompose +14 +13 +malformed_reply 1/);
    expect(full.run.stdout).toMatch(/validate +\d+ +\d+ +file_access 1/);

    const bundle = await readBundle(join(work, "full/bundle"));
    const report = bundle.validation as { tools: { name: string; status: string }[] };
    const status = new Map(report.tools.map((t) => [t.name, t.status]));
    for (const tool of bundle.tools) expect(["passed", "repaired"]).toContain(status.get(tool.name));
    const tasks = lines(join(work, "full/tasks.jsonl")).map((t) => taskSchema.parse(t));
    expect(tasks.map((t) => t.id)).toEqual(bundle.tasks.map((t) => t.id));
    const summary = JSON.parse(readFileSync(join(work, "full/summary.json"), "utf8"));
    expect(summary.bundle).toEqual({ dir: "bundle", hash: full.hash, tools: bundle.tools.length, tasks: 11 });
  });

  // Requests of the full run: 17 decompose (14 + 3 retries), 12 document, 3 integrate, 12 scale, then
  // deploy, then 6 repairs during validation. K = 22 stops it inside the document stage; K = the
  // third-to-last request stops it inside validation (the sandbox checks, between repairs).
  it.each([
    { where: "document", k: 22, stage: "03-document", next: "04-integrate", items: 12 },
    { where: "validate", k: -3, stage: "07-validate", next: undefined, items: undefined },
  ])(
    "killed with SIGKILL mid-stage ($where) and run again, gives the same bundle hash",
    async ({ k, stage, next, items }) => {
      const at = k > 0 ? k : full.requests + k;
      const out = join(work, `killed-${at}`);
      trigger = { at, base: fixture.requests.length };
      const killed = await build(config, out, (child) => {
        if (trigger) trigger.kill = () => child.kill("SIGKILL");
      });
      trigger = undefined;
      expect(killed.signal).toBe("SIGKILL");
      // Killed inside the stage: its file holds some records but not all; the next stage never started.
      const done = lines(join(out, "stages", `${stage}.jsonl`)).length;
      expect(done).toBeLessThan(items ?? full.requests);
      if (items !== undefined) expect(done).toBeLessThan(items);
      if (next !== undefined) expect(existsSync(join(out, "stages", `${next}.jsonl`))).toBe(false);
      expect(existsSync(join(out, "bundle/manifest.json"))).toBe(false);

      const before = fixture.requests.length;
      const resumed = await build(config, out);
      expect(resumed.code, resumed.stderr).toBe(0);
      const requests = fixture.requests.length - before;
      expect(requests).toBeLessThan(full.requests); // finished items were not asked again
      expect(resumed.stdout).toContain(full.hash);
      expect((await readBundle(join(out, "bundle"))).hash).toBe(full.hash);
      expect(readFileSync(join(out, "tasks.jsonl"), "utf8")).toBe(
        readFileSync(join(work, "full/tasks.jsonl"), "utf8"),
      );
      for (const file of ["01-decompose", "03-document", "06-deploy", "07-validate"])
        expect(lines(join(out, "stages", `${file}.jsonl`)).map((r) => ({ ...r, usage: undefined }))).toEqual(
          lines(join(work, "full/stages", `${file}.jsonl`)).map((r) => ({ ...r, usage: undefined })),
        );
    },
    120_000,
  );

  it("builds the example config (examples/env-build.yaml) against the fixture", async () => {
    const examplePath = join(ROOT, "examples/env-build.yaml");
    const example = parseYaml(readFileSync(examplePath, "utf8")) as {
      endpoint: { base_url: string };
      input: { tasks: { path: string; limit: number }[] };
    };
    example.endpoint.base_url = fixture.baseUrl;
    for (const t of example.input.tasks) t.path = resolve(dirname(examplePath), t.path);
    const path = join(work, "example.yaml");
    writeFileSync(path, stringifyYaml(example));
    const run = await build(path, join(work, "example"));
    expect(run.code, run.stderr).toBe(0);
    const bundle = await readBundle(join(work, "example/bundle"));
    // 8 HotpotQA questions and two questions about the scenario, every tool valid.
    expect(bundle.tasks).toHaveLength(10);
    expect(bundle.manifest.source).toEqual({ kind: "rlf-env-build", model: "Qwen/Qwen3-32B" });
    expect((bundle.validation as { dropped: number }).dropped).toBe(0);
    expect(lines(join(work, "example/tasks.jsonl"))).toHaveLength(10);
  }, 120_000);
});

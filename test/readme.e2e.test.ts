// The README's commands, run as written: `npm start` brings up the local stack on its fixed ports,
// then every `npx rlf`, `curl` and `grpcurl` line of the README's sh blocks runs against it, and
// the toolkit example is served behind a gateway.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { ROOT, startTestGateway, stopChild, waitFor } from "@rlfactory/test-support/gateway-harness";
import { startOtlpReceiver } from "@rlfactory/test-support/otlp-receiver";
import { haveSharedData, sharedDataPath } from "@rlfactory/test-support/shared-data";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const readme = readFileSync(join(ROOT, "README.md"), "utf8");

/** Starts one README command line in its own process group, recorded in `into` for `stopAll`. */
function startLine(line: string | undefined, env: NodeJS.ProcessEnv, into: ChildProcess[]): ChildProcess {
  const child = spawn("bash", ["-c", line ?? ""], { cwd: ROOT, env, stdio: "ignore", detached: true });
  into.push(child);
  return child;
}

/** Waits until GET `url` answers 2xx (a refused connection counts as not yet). */
function untilOk(url: string, timeoutMs: number, what: string): Promise<void> {
  return waitFor(async () => (await fetch(url).catch(() => null))?.ok === true, timeoutMs, what);
}

/** Ends the process groups `startLine` started, each given 10 s to exit. */
async function stopAll(children: ChildProcess[]): Promise<void> {
  for (const child of children) {
    if (child.pid && child.exitCode === null) process.kill(-child.pid, "SIGTERM");
    await stopChild(child, 10_000);
  }
}

/** Lines of the README's ```sh blocks. */
function shellLines(): string[] {
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
  return blocks.flatMap((b) => b.split("\n").map((l) => l.trim())).filter((l) => l && !l.startsWith("#"));
}

const HOTPOTQA_FIRST_100 = "hotpotqa/hotpot_dev_distractor_first100_hf.json";
const hasGrpcurl = existsSync(join(ROOT, ".ci/bin/grpcurl")) || !!process.env.CI;
const env = { ...process.env, PATH: `${join(ROOT, ".ci/bin")}:${process.env.PATH}` };

describe("README", () => {
  let stack: ChildProcess;
  let output = "";

  beforeAll(async () => {
    expect(shellLines()).toContain("npm install && npm start");
    // `npm install` has run (CI: npm ci); `npm start` is what a user runs next.
    stack = spawn("npm", ["start"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    stack.stdout?.on("data", (d: Buffer) => {
      output += d.toString();
    });
    stack.stderr?.on("data", (d: Buffer) => {
      output += d.toString();
    });
    await waitFor(
      async () => (await fetch("http://127.0.0.1:8080/readyz")).ok,
      60_000,
      "npm start to serve /readyz on 127.0.0.1:8080",
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${output}`);
    });
  });

  afterAll(async () => {
    if (stack?.pid && stack.exitCode === null && stack.signalCode === null) {
      // npm start → node rlf: signal the whole group, as Ctrl-C does.
      process.kill(-stack.pid, "SIGINT");
      await stopChild(stack, 10_000);
    }
  });

  it("npm start serves the console on 127.0.0.1:8090, showing the local stack's tools", async () => {
    await waitFor(
      async () => (await fetch("http://127.0.0.1:8090/healthz")).ok,
      30_000,
      "the console on 8090",
    );
    expect(await (await fetch("http://127.0.0.1:8090/")).text()).toContain('<div id="app">');
    const res = await fetch("http://127.0.0.1:8090/api/tools");
    const tools = ((await res.json()) as { tools: { name: string; health: string }[] }).tools;
    expect(tools.find((t) => t.name === "search__search")?.health).toBe("ready");
  });

  it("every npx rlf / curl / grpcurl command succeeds against the local stack", async () => {
    // Lines for the example gateway on 50052 run in the next test, with that gateway up.
    const commands = shellLines().filter(
      (l) => /^(npx rlf tools|curl|grpcurl)\b/.test(l) && !l.includes(":50052"),
    );
    expect(commands.length).toBeGreaterThanOrEqual(6);
    for (const command of commands) {
      if (command.startsWith("grpcurl") && !hasGrpcurl) continue;
      const { stdout } = await run("bash", ["-c", command], { cwd: ROOT, env, timeout: 30_000 }).catch(
        (err: { stderr?: string }) => {
          throw new Error(`README command failed: ${command}\n${err.stderr ?? ""}`);
        },
      );
      expect(stdout.length, command).toBeGreaterThan(0);
      if (command.includes("search__search")) expect(stdout).toMatch(/^Doc 1\(Title: "[^"]+"\) /);
      if (command.includes("code__run_code")) expect(stdout).toContain("45");
      if (command.includes("sql__query")) expect(stdout).toMatch(/name \| country/i);
      if (command.includes("/retrieve")) expect(JSON.parse(stdout).result[0][0]).toHaveProperty("score");
      if (command.includes("/run_code"))
        expect(JSON.parse(stdout)).toMatchObject({ status: "Success", run_result: { stdout: "42\n" } });
      if (command.includes("12 * (3 + 4)")) expect(stdout).toContain("84");
      if (command.includes("2^10"))
        expect(JSON.parse(stdout)).toMatchObject({ error_code: "OK", structured_content: { result: 1024 } });
      if (command.includes("/readyz")) expect(JSON.parse(stdout)).toMatchObject({ status: "ready" });
      if (command.includes("/v1/judge"))
        expect(JSON.parse(stdout)).toMatchObject({ score: 1, mode: "rule", judge_model: "rule" });
      if (command.includes("/metrics")) expect(stdout).toContain("rlf_gateway_calls_total");
      if (command.endsWith(" list")) expect(stdout).toContain("rlfactory.v1.ToolGateway");
    }
  });

  // The README names the HotpotQA download with a placeholder path; the test feeds it the first 100
  // records of that file (the shared test data), which hold 991 distinct context paragraphs.
  it.skipIf(!haveSharedData("the README's `rlf data hotpotqa` line", HOTPOTQA_FIRST_100))(
    "builds the HotpotQA corpus as the README shows",
    async () => {
      const line = shellLines().find((l) => l.startsWith("npx rlf data hotpotqa"));
      expect(line).toMatch(/--in \S+hotpot_dev_distractor_v1\.json --out \S+/);
      const out = /--out (\S+)/.exec(line ?? "")?.[1] ?? "";
      rmSync(out, { force: true });
      const command = (line ?? "").replace(/--in \S+/, `--in ${sharedDataPath(HOTPOTQA_FIRST_100)}`);
      await run("bash", ["-c", command], { cwd: ROOT, env, timeout: 30_000 });
      expect(readFileSync(out, "utf8").split("\n").filter(Boolean)).toHaveLength(991);
    },
  );

  it("runs the example gateway.yaml next to the stack", async () => {
    const yaml = /```yaml\n(# gateway\.yaml\n[\s\S]*?)```/.exec(readme)?.[1];
    expect(yaml).toBeDefined();
    const dir = join(ROOT, "test/.tmp-readme");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "gateway.yaml"), yaml ?? "");
    const start = shellLines().find((l) => l.startsWith("npx rlf gateway --config gateway.yaml"));
    expect(start).toBeDefined();
    const gateway = spawn("bash", ["-c", start ?? ""], { cwd: dir, env, stdio: "ignore", detached: true });
    try {
      await waitFor(
        async () => (await fetch("http://127.0.0.1:8081/readyz")).ok,
        30_000,
        "the example gateway",
      );
      const calls = shellLines().filter((l) => l.startsWith("npx rlf tools") && l.includes(":50052"));
      expect(calls.length).toBeGreaterThan(0);
      for (const command of calls) {
        const { stdout } = await run("bash", ["-c", command], { cwd: dir, env, timeout: 30_000 });
        if (command.includes("get-sum")) expect(stdout).toContain("5");
      }
    } finally {
      if (gateway.pid && gateway.exitCode === null) process.kill(-gateway.pid, "SIGTERM");
      await stopChild(gateway, 10_000);
    }
    // bounded inside: the gateway's start (30 s), each call (30 s each) and its stop (10 s)
  }, 120_000);

  it("rolls out the example config against the stack, and serves it (README + examples/README.md)", async () => {
    const examples = readFileSync(join(ROOT, "examples/README.md"), "utf8");
    const exampleLines = [...examples.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
      (m[1] ?? "").split("\n").map((l) => l.trim()),
    );
    const simulate = shellLines().find((l) => l.startsWith("npx rlf-sim llm"));
    const rollout = shellLines().find((l) => l.startsWith("npx rlf rollout"));
    const serve = exampleLines.find((l) => l.startsWith("npx rlf rollout serve"));
    const curl = exampleLines.find((l) => l.startsWith("curl") && l.includes(":8091/v1/rollout"));
    expect(exampleLines).toEqual(expect.arrayContaining([simulate, rollout, "npm start"]));
    const out = join(ROOT, /--out (\S+)/.exec(rollout ?? "")?.[1] ?? "");
    // Under runs/: where the console of `npm start` reads run directories.
    expect(out.startsWith(join(ROOT, "runs/"))).toBe(true);
    rmSync(out, { recursive: true, force: true });
    const background: ChildProcess[] = [];
    try {
      startLine(simulate, env, background);
      await untilOk("http://127.0.0.1:9000/health", 30_000, "rlf-sim llm on 9000");
      const { stdout } = await run("bash", ["-c", rollout ?? ""], { cwd: ROOT, env, timeout: 120_000 });
      expect(stdout).toContain("wrote 120 trajectories");
      expect(stdout).toMatch(/EM/);
      const lines = readFileSync(join(out, "trajectories.jsonl"), "utf8").trim().split("\n");
      expect(lines).toHaveLength(120);
      const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
      expect(summary.exact_match).toBeGreaterThan(0);
      for (const file of ["trajectories.parquet", "report.html"])
        expect(existsSync(join(out, file))).toBe(true);
      // The console of `npm start` lists the run, finished, with its 120 trajectories.
      const listed = (await (await fetch("http://127.0.0.1:8090/api/runs")).json()) as {
        runs: { id: string; in_progress: boolean }[];
      };
      expect(listed.runs.find((r) => r.id === basename(out))).toMatchObject({ in_progress: false });
      const shown = (await (await fetch(`http://127.0.0.1:8090/api/runs/${basename(out)}`)).json()) as {
        trajectories: unknown[];
      };
      expect(shown.trajectories).toHaveLength(120);

      startLine(serve, env, background);
      await untilOk("http://127.0.0.1:8091/healthz", 30_000, "rlf rollout serve on 8091");
      const served = await run("bash", ["-c", curl ?? ""], { cwd: ROOT, env, timeout: 60_000 });
      const body = JSON.parse(served.stdout) as { groups: { trajectories: { status: string }[] }[] };
      expect(body.groups).toHaveLength(1);
      expect(body.groups[0]?.trajectories.map((t) => t.status)).toEqual(["completed", "completed"]);
      // The console of `npm start` shows the served run among the rollout service's runs.
      const live = (await (await fetch("http://127.0.0.1:8090/api/live-runs")).json()) as {
        runs: { state: string; trajectories: number }[];
      };
      expect(live.runs.map((r) => [r.state, r.trajectories])).toContainEqual(["done", 2]);
    } finally {
      await stopAll(background);
      rmSync(out, { recursive: true, force: true });
    }
  }, 240_000);

  it("stops cleanly on Ctrl-C", async () => {
    if (!stack.pid) throw new Error("no stack");
    process.kill(-stack.pid, "SIGINT");
    const exit = await new Promise<{ code: number | null; signal: string | null }>((resolve) => {
      if (stack.exitCode !== null || stack.signalCode !== null)
        resolve({ code: stack.exitCode, signal: stack.signalCode });
      else stack.once("exit", (code, signal) => resolve({ code, signal }));
    });
    // npm itself re-raises SIGINT after its child exits; rlf exits 0.
    expect(exit.code === 0 || exit.signal === "SIGINT").toBe(true);
    expect(output).toContain("SIGINT, shutting down");
    expect(output).not.toMatch(/shutdown failed|Error:/);
    await waitFor(
      async () =>
        !(await fetch("http://127.0.0.1:7002/healthz").then(
          (r) => r.ok,
          () => false,
        )),
      10_000,
      "tool servers to stop",
    );
  });
});

describe("README BFCL rollout", () => {
  it("builds the tasks, serves rlf env bfcl behind the example gateway and rolls out the replayed ground truth", async () => {
    const lines = shellLines();
    const setup = lines.find((l) => l === "npm run setup:environments");
    const data = lines.find((l) => l.startsWith("npx rlf data bfcl"));
    const gateway = lines.find((l) => l.startsWith("npx rlf gateway --config examples/gateway-bfcl.yaml"));
    const simulate = lines.find((l) => l.startsWith("npx rlf-sim llm") && l.includes("--policy replay"));
    const rollout = lines.find((l) => l.startsWith("npx rlf rollout --config examples/rollout-bfcl.yaml"));
    for (const line of [setup, data, gateway, simulate, rollout]) expect(line).toBeDefined();
    const tasksFile = /--out (\S+)/.exec(data ?? "")?.[1] ?? "";
    expect(simulate).toContain(`--tasks ${tasksFile}`);
    const limit = Number(/--limit (\d+)/.exec(rollout ?? "")?.[1]);
    const out = join(ROOT, /--out (\S+)/.exec(rollout ?? "")?.[1] ?? "");
    // Under runs/: where the console of `npm start` reads run directories.
    expect(out.startsWith(join(ROOT, "runs/"))).toBe(true);
    rmSync(tasksFile, { force: true });
    rmSync(out, { recursive: true, force: true });
    const background: ChildProcess[] = [];
    try {
      await run("bash", ["-c", setup ?? ""], { cwd: ROOT, env, timeout: 300_000 });
      const made = await run("bash", ["-c", data ?? ""], { cwd: ROOT, env, timeout: 60_000 });
      expect(made.stderr + made.stdout).toContain(`wrote 200 tasks to ${tasksFile}`);
      expect(readFileSync(tasksFile, "utf8").trim().split("\n")).toHaveLength(200);
      for (const line of [gateway, simulate]) startLine(line, env, background);
      await untilOk("http://127.0.0.1:8082/readyz", 60_000, "the BFCL gateway on 50054 (admin 8082)");
      await untilOk("http://127.0.0.1:9001/health", 30_000, "rlf-sim llm --policy replay on 9001");
      const { stdout } = await run("bash", ["-c", rollout ?? ""], { cwd: ROOT, env, timeout: 180_000 });
      expect(stdout).toContain(`wrote ${limit} trajectories`);
      const trajectories = readFileSync(join(out, "trajectories.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { task_id: string; status: string; reward_components: object });
      expect(trajectories).toHaveLength(limit);
      for (const t of trajectories) {
        expect([t.task_id, t.status]).toEqual([t.task_id, "completed"]);
        expect(t.reward_components, t.task_id).toMatchObject({
          bfcl_state: 1,
          bfcl_response: 1,
          task_completion: 1,
        });
      }
    } finally {
      await stopAll(background);
      rmSync(out, { recursive: true, force: true });
      rmSync(tasksFile, { force: true });
    }
  }, 600_000);
});

describe("README FTRL rollout", () => {
  it("serves the shipped bundle behind the example gateway, rolls out the solve policy and reports Solve-F1 per turn", async () => {
    const lines = shellLines();
    const gateway = lines.find((l) => l.startsWith("npx rlf gateway --config examples/gateway-ftrl.yaml"));
    const simulate = lines.find((l) => l.startsWith("npx rlf-sim llm") && l.includes("--policy solve"));
    const rollout = lines.find((l) => l.startsWith("npx rlf rollout --config examples/rollout-ftrl.yaml"));
    for (const line of [gateway, simulate, rollout]) expect(line).toBeDefined();
    const tasksFile = /--tasks (\S+)/.exec(simulate ?? "")?.[1] ?? "";
    expect(tasksFile).toBe("examples/ftrl-hotpotqa/tasks.jsonl");
    const tasks = new Map(
      readFileSync(join(ROOT, tasksFile), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { id: string; extra_info: { actions: unknown[][] } })
        .map((t) => [t.id, t.extra_info.actions.map((turn) => turn.length)]),
    );
    expect(tasks.size).toBe(20);
    const out = join(ROOT, /--out (\S+)/.exec(rollout ?? "")?.[1] ?? "");
    // Under runs/: where the console of `npm start` reads run directories.
    expect(out.startsWith(join(ROOT, "runs/"))).toBe(true);
    rmSync(out, { recursive: true, force: true });
    const background: ChildProcess[] = [];
    try {
      for (const line of [gateway, simulate]) startLine(line, env, background);
      await untilOk("http://127.0.0.1:8083/readyz", 60_000, "the FTRL gateway on 50055 (admin 8083)");
      await untilOk("http://127.0.0.1:9002/health", 30_000, "rlf-sim llm --policy solve on 9002");
      const { stdout } = await run("bash", ["-c", rollout ?? ""], { cwd: ROOT, env, timeout: 120_000 });
      expect(stdout).toContain("wrote 20 trajectories");
      const trajectories = readFileSync(join(out, "trajectories.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map(
          (l) =>
            JSON.parse(l) as {
              task_id: string;
              status: string;
              status_reason: string;
              reward: number;
              reward_components: Record<string, number>;
              turns: { kind: string }[];
              turn_rewards: number[];
              tool_calls: { turn: number; is_error: boolean }[];
            },
        );
      expect(trajectories).toHaveLength(20);
      // Expected Solve-F1 per sampled turn: hop K's n calls all hit a sub-answer (s = n): 2n/(n+1);
      // the answer turn, nothing left unsolved: 1/(1+0).
      const byTurn: number[][] = [];
      for (const t of trajectories) {
        const hops = tasks.get(t.task_id) ?? [];
        expect([t.task_id, t.status, t.status_reason]).toEqual([t.task_id, "completed", "answer"]);
        const sampled = t.turns.flatMap((turn, i) => (turn.kind === "sampled" ? [i] : []));
        expect(sampled, t.task_id).toHaveLength(hops.length + 1);
        const expected = [...hops.map((n) => (2 * n) / (n + 1)), 1];
        sampled.forEach((turn, k) => {
          expect(t.tool_calls.filter((c) => c.turn === turn && !c.is_error)).toHaveLength(hops[k] ?? 0);
          expect(t.turn_rewards[turn], `${t.task_id} turn ${k + 1}`).toBeCloseTo(expected[k]!, 10);
          byTurn[k] = [...(byTurn[k] ?? []), expected[k]!];
        });
        const mean = expected.reduce((a, b) => a + b, 0) / expected.length;
        expect(t.reward_components.ftrl_solve).toBeCloseTo(mean, 10);
        expect(t.reward).toBeCloseTo(mean, 10);
      }
      // the example mixes parallel calls (4/3) and single calls (1) in the first turn
      expect(new Set(byTurn[0]).size).toBe(2);
      const fmt = (x: number) => String(Number(x.toFixed(3)));
      const perTurn = byTurn
        .map((vs, k) => `turn ${k + 1} ${fmt(vs.reduce((a, b) => a + b, 0) / vs.length)} (${vs.length})`)
        .join(" · ");
      expect(stdout).toMatch(
        new RegExp(`turn reward +${perTurn.replace(/[()]/g, "\\$&")} \\(mean per sampled turn\\)`),
      );
      expect(readme).toContain(perTurn);
      const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
      expect(summary.turn_rewards.map((t: { count: number }) => t.count)).toEqual(
        byTurn.map((v) => v.length),
      );
    } finally {
      await stopAll(background);
      rmSync(out, { recursive: true, force: true });
    }
  }, 240_000);
});

describe("README tracing command", () => {
  it("exports spans from the gateway and the tool server in one trace", async () => {
    const line = shellLines().find((l) => l.startsWith("OTEL_EXPORTER_OTLP_ENDPOINT="));
    expect(line).toBe("OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 npm start");
    // The README's command as written, on a free port: 4318 is where a developer's Jaeger listens.
    const receiver = await startOtlpReceiver(0);
    const traced = (line ?? "").replace("http://127.0.0.1:4318", receiver.url);
    const stack = spawn("bash", ["-c", traced], {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let log = "";
    stack.stdout?.on("data", (d: Buffer) => {
      log += d.toString();
    });
    stack.stderr?.on("data", (d: Buffer) => {
      log += d.toString();
    });
    try {
      await waitFor(
        async () => (await fetch("http://127.0.0.1:8080/readyz")).ok,
        // The stack's own readiness budget grows with the load; a loaded 2-core machine took over 60 s.
        240_000,
        "the traced stack",
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n${log}`);
      });
      await run(process.execPath, [
        join(ROOT, "services/cli/bin/rlf.js"),
        "tools",
        "call",
        "calculator__calculate",
        "--args",
        '{"expression": "6*7"}',
        "--no-cache",
      ]);
      const [toolSpan] = await receiver.waitFor(
        (s) => s.serviceName === "rlf-tool-calculator" && s.kind === "SERVER",
        15_000,
      );
      const trace = await receiver.waitFor((s) => s.traceId === toolSpan?.traceId, 15_000, 3);
      expect(trace.map((s) => `${s.serviceName} ${s.kind} ${s.name}`).sort()).toEqual([
        "rlf-gateway CLIENT tools/call calculate",
        "rlf-gateway SERVER rlfactory.v1.ToolGateway/CallTool",
        "rlf-tool-calculator SERVER tools/call calculate",
      ]);
    } catch (err) {
      throw new Error(
        `${(err as Error).message}\nspans: ${JSON.stringify(receiver.spans())}\n${log.slice(-3000)}`,
      );
    } finally {
      if (stack.pid && stack.exitCode === null && stack.signalCode === null)
        process.kill(-stack.pid, "SIGINT");
      await stopChild(stack, 10_000);
      await receiver.close();
    }
  }, 300_000);
});

describe("README toolkit example", () => {
  const dir = join(ROOT, "test/.tmp-readme");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("serves its tool behind a gateway", async () => {
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toContain("defineTool");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "geo.ts");
    writeFileSync(file, example ?? "");
    const gw = await startTestGateway({
      servers: { geo: { command: process.execPath, args: [file, "--stdio"] } },
    });
    try {
      const ok = await gw.client.callTool({ name: "geo__capital", arguments_json: '{"country": "Japan"}' });
      expect(JSON.parse(ok.structured_content_json)).toEqual({ capital: "Tokyo" });
      expect(ok.content[0]?.text?.text).toBe("Tokyo");
      const unknown = await gw.client.callTool({
        name: "geo__capital",
        arguments_json: '{"country": "Atlantis"}',
      });
      expect(unknown).toMatchObject({ is_error: true, error_code: "OK" });
      expect(unknown.content[0]?.text?.text).toBe("no capital known for Atlantis");
    } finally {
      await gw.stop();
    }
  });
});

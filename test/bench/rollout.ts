// Benchmark of the rollout engine against an RL-Factory-style lockstep loop (JSON output; never timing
// asserts in tests).
//
//   npm run bench -- rollout --out FILE.json [--tasks 512] [--concurrency 64] [--turns 4] [--turn-ms 50-150]
//
// Everything is real but the model: our engine (createRolloutEngine) with its vLLM client, the Qwen3
// tokenizer and chat template, the Hermes codec, the gateway (`rlf gateway`, a child process) and an MCP tool server
// in a child process over Streamable HTTP (rollout-latency-server.ts). The model is `rlf-sim llm
// --policy parallel-calls` in a child process: it calls `latency__lookup` on turns 1..turns and answers
// on the turn after.
//
// Latencies are pure functions of the request, so a trajectory replayed alone meets exactly the latencies
// it met in the crowd:
//   generation   uniform in --turn-ms, keyed on (seed, prompt ids): the turn-ms model of the simulated
//                server, applied by a sampler decorator (withTurnLatency) because the server draws its
//                latency in arrival order, which a replay cannot reproduce
//   tool         rollout-latency-server.ts: 95 % lognormal (median 10 ms, sigma 0.5), 5 % 200 ms, keyed on
//                the call's arguments (every call's arguments are unique: "<question> <call number>")
//
// Runs, after a warm-up:
//   async              the engine, all tasks, `concurrency` trajectories in flight
//   lockstep           the same engine with a barrier on every phase (see lockstep()): batches of
//                      `concurrency` run one after another, and within a batch turn t+1 of any trajectory
//                      starts only when turn t (generation, then tools) of every trajectory is done
//   single batch       the first `concurrency` tasks alone, on the engine and in lockstep
//   critical path      the trajectory of that batch with the longest drawn latencies, replayed alone
//   parallel calls     a second simulated model writing `parallel-calls` calls per turn: the wall time of
//                      each turn's CallTools vs the slowest of its calls replayed alone
// plus the same figures with zero overhead, computed from the latencies the runs actually drew (`ideal`).

import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import type { GatewayClient } from "@rlfactory/clients";
import { nearestRankPercentile, unit } from "@rlfactory/kit";
import {
  createRolloutEngine,
  createSampler,
  gatewayTools,
  type ModelTokenizer,
  parseRolloutConfig,
  qwen3Tokenizer,
  type RolloutEngine,
  type Task,
  type TokenSampler,
  type ToolCaller,
  type ToolCallInput,
  type Trajectory,
} from "@rlfactory/rollout";
import { parseTurnMs } from "@rlfactory/simulators/llm";
import { RLF_SIM, spawnGateway } from "@rlfactory/test-support/gateway-harness";
import { z } from "zod";
import { parseBenchFlags } from "./bench-flags.ts";
import { DEFAULT_LATENCY_MODEL, type LatencyModel, lookupOutput } from "./rollout-latency-server.ts";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, "../..");
const LATENCY_SERVER = join(here, "rollout-latency-server.ts");
const TOOL = "latency__lookup";

export interface RolloutBenchOptions {
  tasks: number;
  /** Trajectories in flight (async), and the lockstep batch size. */
  concurrency: number;
  /** Turns with a tool call; the answer comes on the turn after. */
  turns: number;
  /** Generation time per turn, uniform in [min, max] ms. */
  turnMs: [number, number];
  tool: LatencyModel;
  /** Calls per turn in the parallel-calls run. */
  parallelCalls: number;
  parallelTasks: number;
  parallelConcurrency: number;
  /** Runs of the single batch (engine and lockstep); the figures are the medians. */
  batchRepeats: number;
  /** Runs of the critical path alone; the figure is the median. */
  replays: number;
  /** Seed of the generation latencies (the tool server has its own, `tool.seed`). */
  seed: number;
}

export const DEFAULT_ROLLOUT_BENCH: RolloutBenchOptions = {
  tasks: 512,
  concurrency: 64,
  turns: 4,
  turnMs: [50, 150],
  tool: DEFAULT_LATENCY_MODEL,
  parallelCalls: 8,
  parallelTasks: 8,
  parallelConcurrency: 1,
  batchRepeats: 3,
  replays: 3,
  seed: 1,
};

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

// ---------------------------------------------------------------------------------------------------
// Child processes

/** A child process that said it is ready, and what it said (its URL). */
export interface Started {
  child: ChildProcess;
  found: string;
}

/** Spawns `node args…` and resolves with what `ready` finds in a stderr line (killed on failure). */
function spawnUntil(args: string[], ready: (line: string) => string | undefined): Promise<Started> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${args[0]} did not start in 60 s:\n${stderr}`));
    }, 60_000);
    let isReady = false;
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      const how = `${args.join(" ")} exited (${code ?? signal})`;
      if (!isReady) reject(new Error(`${how} before it was ready:\n${stderr}`));
      // mid-run and not by the bench's own kill at its end: the cause of what fails next
      else if (!child.killed) process.stderr.write(`${how} while the bench ran; its stderr:\n${stderr}`);
    });
    createInterface({ input: child.stderr! }).on("line", (line) => {
      stderr = `${stderr}${line}\n`.slice(-20_000); // the last lines: a crash says why at the end
      const found = ready(line);
      if (found !== undefined && !isReady) {
        isReady = true;
        clearTimeout(timer);
        resolvePromise({ child, found });
      }
    });
  });
}

const ListeningLog = z.object({ msg: z.literal("listening"), url: z.string() });

export function startLatencyServer(model: LatencyModel) {
  return spawnUntil(
    [
      LATENCY_SERVER,
      "--http",
      "0",
      "--seed",
      String(model.seed),
      "--median-ms",
      String(model.medianMs),
      "--sigma",
      String(model.sigma),
      "--slow-fraction",
      String(model.slowFraction),
      "--slow-ms",
      String(model.slowMs),
    ],
    (line) => {
      try {
        const log = ListeningLog.safeParse(JSON.parse(line));
        return log.success ? log.data.url : undefined;
      } catch {
        return undefined;
      }
    },
  );
}

/** `rlf-sim llm --policy parallel-calls`, answering at once (the latency is added by withTurnLatency). */
export function startSimulatedModel(calls: number, turns: number) {
  return spawnUntil(
    [
      RLF_SIM,
      "llm",
      "--policy",
      "parallel-calls",
      "--port",
      "0",
      "--tool",
      TOOL,
      "--calls",
      String(calls),
      "--turns",
      String(turns),
    ],
    (line) => /SIMULATED LLM .* listening on (\S+)/.exec(line)?.[1],
  );
}

// ---------------------------------------------------------------------------------------------------
// Latency, lockstep

/** The generation time of a request: uniform in [min, max], keyed on (seed, prompt ids). */
function turnLatencyMs(seed: number, [min, max]: [number, number], promptIds: readonly number[]): number {
  // FNV-1a over the ids as numbers (hashing their decimal text would cost the bench ~0.1 ms a request)
  let h = 0x811c9dc5;
  for (const id of promptIds) h = Math.imul(h ^ id, 0x01000193);
  return min + (max - min) * unit("turn-ms", seed, h >>> 0);
}

/**
 * The sampler, with each request taking turnLatencyMs longer, as if the server had waited before answering
 * (the simulated server's `--turn-ms`, keyed on the request instead of drawn in arrival order). `close`
 * is left to the owner of the sampler, so several engines can share it.
 */
function withTurnLatency(sampler: TokenSampler, seed: number, turnMs: [number, number]): TokenSampler {
  return {
    trainable: true,
    kind: sampler.kind,
    async generate(request) {
      const started = performance.now();
      const result = await sampler.generate(request);
      await sleep(turnLatencyMs(seed, turnMs, request.promptIds), undefined, {
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      });
      return { ...result, latencyMs: performance.now() - started };
    },
    close: async () => {},
  };
}

/**
 * A barrier per phase ("gen:3", "tools:3") over a shrinking set of members: `arrive(phase)` resolves once
 * every member still running has arrived there; `leave()` is a member finishing (it no longer holds
 * anyone back).
 */
class PhaseBarrier {
  #running: number;
  readonly #phases = new Map<string, { arrived: number; release: () => void; done: Promise<void> }>();

  constructor(members: number) {
    this.#running = members;
  }

  arrive(phase: string): Promise<void> {
    let p = this.#phases.get(phase);
    if (p === undefined) {
      let release = () => {};
      const done = new Promise<void>((r) => {
        release = r;
      });
      p = { arrived: 0, release, done };
      this.#phases.set(phase, p);
    }
    p.arrived += 1;
    this.#check();
    return p.done;
  }

  leave(): void {
    this.#running -= 1;
    this.#check();
  }

  #check(): void {
    for (const [name, p] of this.#phases) {
      if (p.arrived >= this.#running) {
        p.release();
        this.#phases.delete(name);
      }
    }
  }
}

/**
 * RL-Factory's loop shape on our building blocks: the sampler and the tool caller of a batch, wrapped so
 * that a turn's generation returns only when the generations of that turn of every running trajectory of
 * the batch have returned, and a turn's tool calls only when all of that turn's tool calls have. So turn
 * t+1 of any trajectory starts only when turn t of all is done. The trajectories themselves run the
 * engine's own loop (runTrajectory), unchanged.
 */
export function lockstep(sampler: TokenSampler, toolCaller: ToolCaller) {
  let barrier = new PhaseBarrier(0);
  const genTurn = new Map<string, number>();
  const toolTurn = new Map<string, number>();
  const next = (m: Map<string, number>, id: string) => {
    const t = (m.get(id) ?? 0) + 1;
    m.set(id, t);
    return t;
  };
  return {
    sampler: {
      trainable: true,
      kind: sampler.kind,
      async generate(request) {
        const turn = next(genTurn, request.sessionId ?? "");
        const result = await sampler.generate(request);
        await barrier.arrive(`gen:${turn}`);
        return result;
      },
      close: async () => {},
    } satisfies TokenSampler,
    toolCaller: {
      async callTools(calls, options) {
        const turn = next(toolTurn, options.trajectoryId);
        const outcomes = await toolCaller.callTools(calls, options);
        await barrier.arrive(`tools:${turn}`);
        return outcomes;
      },
    } satisfies ToolCaller,
    /** A batch of `members` trajectories starts (the previous one has finished). */
    begin: (members: number) => {
      barrier = new PhaseBarrier(members);
      genTurn.clear();
      toolTurn.clear();
    },
    /** A trajectory of the batch finished. */
    leave: () => barrier.leave(),
  };
}

// ---------------------------------------------------------------------------------------------------
// Runs

interface Stack {
  gatewayAddress: string;
  client: GatewayClient;
  tokenizer: ModelTokenizer;
  /** The simulated model of the main workload (one call per turn), with the turn latency. */
  sampler: TokenSampler;
  /** The simulated model writing `parallelCalls` calls per turn, with the turn latency. */
  parallelSampler: TokenSampler;
  llmUrl: string;
}

export function makeTasks(prefix: string, n: number): Task[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${String(i).padStart(4, "0")}`,
    data_source: "bench",
    prompt: [{ role: "user" as const, content: `Question: what does the record ${prefix}-${i} say?` }],
    ground_truth: "unknown",
    extra_info: {},
  }));
}

/** The engine on the bench's stack: group size 1, up to `run.maxTurns` turns, `run.inFlight` at once. */
export async function benchEngine(
  stack: { llmUrl: string; gatewayAddress: string; tokenizer: ModelTokenizer },
  parts: { sampler: TokenSampler; toolCaller: ToolCaller },
  run: { maxTurns: number; inFlight: number; deadlineMs: number },
): Promise<RolloutEngine> {
  const config = parseRolloutConfig({
    // required by the schema, unused: the sampler comes in `parts`
    inference: { engine: "vllm", url: stack.llmUrl },
    gateway: { address: stack.gatewayAddress, tools: [TOOL], deadline_ms: run.deadlineMs },
    rollout: {
      group_size: 1,
      max_turns: run.maxTurns,
      max_concurrency: run.inFlight,
      sampling: { temperature: 1, top_p: 1, max_tokens: 1024, stop: [] },
    },
    reward: [{ type: "exact_match" }],
  });
  return createRolloutEngine(config, { ...parts, tokenizer: stack.tokenizer });
}

function engineFor(
  stack: Stack,
  o: RolloutBenchOptions,
  parts: { sampler: TokenSampler; toolCaller: ToolCaller },
  inFlight: number,
): Promise<RolloutEngine> {
  return benchEngine(stack, parts, { maxTurns: o.turns + 1, inFlight, deadlineMs: 30_000 });
}

interface RunResult {
  wall_ms: number;
  trajectories: Trajectory[];
}

/** Runs `tasks` through the engine to the last group and keeps every trajectory; `onTrajectory` sees each as it finishes. */
export async function runEngine(
  engine: RolloutEngine,
  tasks: Task[],
  onTrajectory: () => void = () => {},
): Promise<RunResult> {
  const trajectories: Trajectory[] = [];
  const { wall_ms } = await streamEngine(engine, tasks, (t) => {
    trajectories.push(t);
    onTrajectory();
  });
  return { wall_ms, trajectories };
}

/**
 * Runs `tasks` through the engine to the last group, handing each trajectory to `onTrajectory` as it
 * finishes and keeping none (what a trainer's consumer does: the engine's heap holds only what is in flight).
 */
export async function streamEngine(
  engine: RolloutEngine,
  tasks: Task[],
  onTrajectory: (t: Trajectory) => void,
): Promise<{ wall_ms: number }> {
  const started = performance.now();
  for await (const group of engine.rollout(tasks, { groupSize: 1 })) {
    for (const t of group.trajectories) onTrajectory(t);
  }
  return { wall_ms: performance.now() - started };
}

async function runAsync(stack: Stack, o: RolloutBenchOptions, tasks: Task[], inFlight = o.concurrency) {
  const engine = await engineFor(
    stack,
    o,
    { sampler: stack.sampler, toolCaller: gatewayTools(stack.client) },
    inFlight,
  );
  try {
    return await runEngine(engine, tasks);
  } finally {
    await engine.close();
  }
}

/** Batches of `o.concurrency` one after another, each in lockstep. */
async function runLockstep(stack: Stack, o: RolloutBenchOptions, tasks: Task[]) {
  const trajectories: Trajectory[] = [];
  const batchWalls: number[] = [];
  const step = lockstep(stack.sampler, gatewayTools(stack.client));
  const engine = await engineFor(stack, o, step, o.concurrency);
  const started = performance.now();
  let wall = 0;
  try {
    for (let at = 0; at < tasks.length; at += o.concurrency) {
      const batch = tasks.slice(at, at + o.concurrency);
      step.begin(batch.length);
      const run = await runEngine(engine, batch, step.leave);
      batchWalls.push(run.wall_ms);
      trajectories.push(...run.trajectories);
    }
    wall = performance.now() - started;
  } finally {
    await engine.close();
  }
  return { wall_ms: wall, trajectories, batch_walls_ms: batchWalls };
}

/** One turn's CallTools: its wall time, its slowest call (by drawn latency) and that call's latencies. */
interface ToolTurn {
  wall_ms: number;
  slowest: ToolCallInput;
  /** The slowest call's latency as the gateway measured it in the turn. */
  slowest_gateway_ms: number;
  /** The latency the tool server drew for it (its sleep). */
  slowest_drawn_ms: number;
  /** Wall time of the slowest call replayed alone, in its own CallTools (set after the run). */
  slowest_alone_ms?: number;
}

function timedToolCaller(inner: ToolCaller, turns: ToolTurn[]): ToolCaller {
  return {
    async callTools(calls, options) {
      const started = performance.now();
      const outcomes = await inner.callTools(calls, options);
      const wall = performance.now() - started;
      const drawn = outcomes.map((x) => drawnMs(x.text));
      const k = drawn.indexOf(Math.max(...drawn));
      turns.push({
        wall_ms: wall,
        slowest: calls[k]!,
        slowest_gateway_ms: outcomes[k]!.latencyMs,
        slowest_drawn_ms: drawn[k]!,
      });
      return outcomes;
    },
  };
}

/** The latency the tool server was told to take, from its answer. */
function drawnMs(resultText: string): number {
  try {
    return lookupOutput.parse(JSON.parse(resultText)).slept_ms;
  } catch {
    throw new Error(`not an answer of the latency server: ${resultText.slice(0, 200)}`);
  }
}

// ---------------------------------------------------------------------------------------------------
// Figures

/** Per sampled turn, the generation latency its request was given; per tool turn, the slowest drawn call. */
function drawnPath(t: Trajectory, o: RolloutBenchOptions): { gen: number[]; tools: number[] } {
  const gen = t.turns
    .filter((turn) => turn.kind === "sampled")
    .map((turn) =>
      turnLatencyMs(o.seed, o.turnMs, [...t.prompt_ids, ...t.response_ids.slice(0, turn.start)]),
    );
  const byTurn = new Map<number, number>();
  for (const call of t.tool_calls) {
    const k = call.turn ?? -1;
    byTurn.set(k, Math.max(byTurn.get(k) ?? 0, drawnMs(call.result)));
  }
  return { gen, tools: [...byTurn.entries()].sort(([a], [b]) => a - b).map(([, ms]) => ms) };
}

/** CPU seconds a child process has used so far (Linux /proc), or null where that cannot be read. */
export function childCpuS(child: ChildProcess): number | null {
  try {
    // fields after the command name: state is field 3; utime, stime are fields 14 and 15
    const stat = readFileSync(`/proc/${child.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? round(ticks / 100, 2) : null;
  } catch {
    return null;
  }
}

/** CPU seconds by process: this one (the engine) and the stack's children (NaN where unreadable). */
export interface StackCpu {
  engine: number;
  gateway: number;
  simulated_model: number;
  tool_server: number;
}

/** CPU seconds used so far by the engine (this process) and the stack's child processes. */
export function stackCpuNow(children: {
  gateway: ChildProcess;
  model: ChildProcess;
  tools: ChildProcess;
}): StackCpu {
  const own = process.cpuUsage();
  return {
    engine: (own.user + own.system) / 1e6,
    gateway: childCpuS(children.gateway) ?? Number.NaN,
    simulated_model: childCpuS(children.model) ?? Number.NaN,
    tool_server: childCpuS(children.tools) ?? Number.NaN,
  };
}

/** CPU seconds by process between two readings, to 10 ms. */
export function cpuBetween(before: StackCpu, after: StackCpu): StackCpu {
  return {
    engine: round(after.engine - before.engine),
    gateway: round(after.gateway - before.gateway),
    simulated_model: round(after.simulated_model - before.simulated_model),
    tool_server: round(after.tool_server - before.tool_server),
  };
}

/** The report's `machine`. */
export function machineInfo() {
  return {
    cpus: cpus().length,
    cpu_model: cpus()[0]?.model ?? "",
    memory_gib: round(totalmem() / 2 ** 30, 1),
    node: process.version,
  };
}

/** A logger to stderr, each line after the seconds since it was made (right-aligned in `width`). */
export function elapsedLog(width: number): (line: string) => void {
  const t0 = performance.now();
  return (line) =>
    process.stderr.write(`[${((performance.now() - t0) / 1000).toFixed(1).padStart(width)} s] ${line}\n`);
}

/** `rlf gateway` in a child process over the latency tool server at `url`: cache off, `bulkhead`. */
export function spawnLatencyGateway(url: string, bulkhead: { max_concurrent: number; max_queue: number }) {
  return spawnGateway({ servers: { latency: { url, policy: { cache: false, bulkhead } } } });
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

function pathMs(t: Trajectory, o: RolloutBenchOptions): number {
  const p = drawnPath(t, o);
  return sum(p.gen) + sum(p.tools);
}

/** Zero-overhead wall time of the engine: list scheduling of the drawn paths on `slots`, in task order. */
function idealAsyncMs(paths: readonly number[], slots: number): number {
  const free = new Array<number>(Math.min(slots, paths.length)).fill(0);
  let end = 0;
  for (const p of paths) {
    let k = 0;
    for (let i = 1; i < free.length; i++) if (free[i]! < free[k]!) k = i;
    free[k]! += p;
    end = Math.max(end, free[k]!);
  }
  return end;
}

/** Zero-overhead wall time of lockstep: per batch, per turn, the slowest generation plus the slowest tool phase. */
function idealLockstepMs(paths: readonly { gen: number[]; tools: number[] }[], batch: number): number {
  let total = 0;
  for (let at = 0; at < paths.length; at += batch) {
    const b = paths.slice(at, at + batch);
    const turns = Math.max(...b.map((p) => p.gen.length));
    for (let t = 0; t < turns; t++) {
      total += Math.max(0, ...b.map((p) => p.gen[t] ?? 0));
      total += Math.max(0, ...b.map((p) => p.tools[t] ?? 0));
    }
  }
  return total;
}

/** Nearest-rank quantile (the kit's percentile at 100·q); 0 for no values. */
function quantile(xs: readonly number[], q: number): number {
  return nearestRankPercentile(xs, q * 100) ?? 0;
}

/** The nearest-rank p50 (for an odd count, the middle value). */
const median = (xs: readonly number[]) => quantile(xs, 0.5);

function runSummary(run: { wall_ms: number; trajectories: Trajectory[] }) {
  const total = run.trajectories.map((t) => t.timings.total_ms ?? 0);
  const statuses: Record<string, number> = {};
  for (const t of run.trajectories) statuses[t.status] = (statuses[t.status] ?? 0) + 1;
  return {
    trajectories: run.trajectories.length,
    statuses,
    wall_s: round(run.wall_ms / 1000, 3),
    trajectories_per_s: round(run.trajectories.length / (run.wall_ms / 1000)),
    trajectory_ms: { p50: round(quantile(total, 0.5), 1), p99: round(quantile(total, 0.99), 1) },
  };
}

/** Every trajectory must have run the whole script: `turns` tool turns and an answer. */
export function checkComplete(
  name: string,
  trajectories: Trajectory[],
  expected: number,
  turns: number,
  calls = 1,
) {
  const tally = new ScriptTally(turns, calls);
  for (const t of trajectories) tally.add(t);
  tally.check(name, expected);
}

/**
 * checkComplete one trajectory at a time, as they come: counts them and their sampled turns, and keeps
 * only the first that did not run the whole script (`turns` tool turns of `calls` calls, then an answer).
 */
export class ScriptTally {
  readonly #turns: number;
  readonly #calls: number;
  trajectories = 0;
  sampledTurns = 0;
  #bad = 0;
  #firstBad: Trajectory | undefined;

  constructor(turns: number, calls = 1) {
    this.#turns = turns;
    this.#calls = calls;
  }

  add(t: Trajectory): void {
    this.trajectories += 1;
    for (const x of t.turns) if (x.kind === "sampled") this.sampledTurns += 1;
    const ran =
      t.status === "completed" &&
      t.tool_calls.length === this.#turns * this.#calls &&
      !t.tool_calls.some((c) => c.is_error);
    if (ran) return;
    this.#bad += 1;
    this.#firstBad ??= t;
  }

  /** Throws naming the run when a trajectory is missing or one did not run the script. */
  check(name: string, expected: number): void {
    if (this.trajectories === expected && this.#bad === 0) return;
    const first = this.#firstBad;
    throw new Error(
      `${name}: ${this.trajectories}/${expected} trajectories, ${this.#bad} did not run the script` +
        (first
          ? ` (e.g. ${first.task_id}: ${first.status} ${first.status_reason}, ${first.tool_calls.length} calls, ` +
            `${first.tool_calls.find((c) => c.is_error)?.result ?? "no failed call"})`
          : ""),
    );
  }
}

// ---------------------------------------------------------------------------------------------------

export async function benchRollout(out: string, options: Partial<RolloutBenchOptions> = {}): Promise<void> {
  const o: RolloutBenchOptions = { ...DEFAULT_ROLLOUT_BENCH, ...options };
  const log = elapsedLog(5);
  const children: ChildProcess[] = [];
  const closers: (() => Promise<void>)[] = [];
  try {
    // the three children start at once; whichever started is stopped at the end, even when another failed
    const tokenizerLoading = qwen3Tokenizer();
    const started = await Promise.allSettled([
      startLatencyServer(o.tool),
      startSimulatedModel(1, o.turns),
      startSimulatedModel(o.parallelCalls, o.turns),
    ]);
    for (const r of started) if (r.status === "fulfilled") children.push(r.value.child);
    const [tools, model, parallelModel] = started.map((r) => {
      if (r.status === "rejected") throw r.reason;
      return r.value;
    }) as [Started, Started, Started];
    const tokenizer = await tokenizerLoading;
    log("servers up");
    // The gateway in its own process, as deployed: the engine's event loop does the engine's work only.
    const gw = await spawnLatencyGateway(tools.found, { max_concurrent: 1024, max_queue: 4096 });
    closers.push(() => gw.stop());
    const base = createSampler({ engine: "vllm", url: model.found, max_concurrency: 1024 });
    const parallelBase = createSampler({ engine: "vllm", url: parallelModel.found, max_concurrency: 1024 });
    closers.push(
      () => base.close(),
      () => parallelBase.close(),
    );
    const stack: Stack = {
      gatewayAddress: gw.grpcAddress,
      client: gw.client,
      tokenizer,
      sampler: withTurnLatency(base, o.seed, o.turnMs),
      parallelSampler: withTurnLatency(parallelBase, o.seed, o.turnMs),
      llmUrl: model.found,
    };

    // warm-up: JIT, connections, the tokenizer's caches
    log(`rollout bench: ${o.tasks} tasks, ${o.concurrency} in flight, ${o.turns} tool turns; warming up`);
    await runAsync(stack, o, makeTasks("warm", o.concurrency));
    await runLockstep(stack, o, makeTasks("warm-lockstep", o.concurrency));

    // CPU seconds by process over a run: on a 2-core machine the three processes share the cores
    const cpuNow = () => stackCpuNow({ gateway: gw.process, model: model.child, tools: tools.child });
    const cpuSince = (before: StackCpu) => cpuBetween(before, cpuNow());

    const tasks = makeTasks("task", o.tasks);
    let cpuBefore = cpuNow();
    const asyncRun = await runAsync(stack, o, tasks);
    const asyncCpu = cpuSince(cpuBefore);
    checkComplete("async", asyncRun.trajectories, o.tasks, o.turns);
    log(`async      ${JSON.stringify({ ...runSummary(asyncRun), cpu_s: asyncCpu })}`);
    cpuBefore = cpuNow();
    const lockRun = await runLockstep(stack, o, tasks);
    const lockCpu = cpuSince(cpuBefore);
    checkComplete("lockstep", lockRun.trajectories, o.tasks, o.turns);
    log(`lockstep   ${JSON.stringify({ ...runSummary(lockRun), cpu_s: lockCpu })}`);

    // one batch: the first `concurrency` tasks, on the engine and in lockstep, `batchRepeats` times
    const batch = tasks.slice(0, o.concurrency);
    const batchRuns: { async_wall_ms: number; lockstep_wall_ms: number }[] = [];
    let batchAsync: RunResult | undefined;
    for (let r = 0; r < o.batchRepeats; r++) {
      const a = await runAsync(stack, o, batch);
      checkComplete("single batch async", a.trajectories, batch.length, o.turns);
      const l = await runLockstep(stack, o, batch);
      checkComplete("single batch lockstep", l.trajectories, batch.length, o.turns);
      batchRuns.push({ async_wall_ms: round(a.wall_ms, 1), lockstep_wall_ms: round(l.wall_ms, 1) });
      batchAsync ??= a;
    }
    const batchAsyncMs = median(batchRuns.map((r) => r.async_wall_ms));
    const batchLockMs = median(batchRuns.map((r) => r.lockstep_wall_ms));
    log(`batch      ${JSON.stringify(batchRuns)}`);

    // critical path: the batch's trajectory with the longest drawn latencies, alone, `replays` times
    const longest = batchAsync!.trajectories
      .map((t) => ({ t, path: pathMs(t, o) }))
      .sort((a, b) => b.path - a.path)[0]!;
    const task = batch.find((x) => x.id === longest.t.task_id)!;
    const aloneWalls: number[] = [];
    // the replay must meet the same latencies: the same generation latencies, and the same calls with the
    // same answers (which carry the latency the tool server drew)
    const latencies = (t: Trajectory) =>
      JSON.stringify([drawnPath(t, o).gen, t.tool_calls.map((c) => [c.arguments, c.result])]);
    let exact = true;
    for (let r = 0; r < o.replays; r++) {
      const alone = await runAsync(stack, o, [task], 1);
      checkComplete("replay", alone.trajectories, 1, o.turns);
      aloneWalls.push(round(alone.wall_ms, 1));
      exact &&= latencies(alone.trajectories[0]!) === latencies(longest.t);
    }
    const criticalMs = median(aloneWalls);
    const critical = {
      task_id: task.id,
      drawn_path_ms: round(longest.path, 1),
      in_batch_ms: round(longest.t.timings.total_ms ?? 0, 1),
      alone_wall_ms: aloneWalls,
      replay_exact: exact,
    };
    log(`critical   ${JSON.stringify(critical)}`);

    // parallel calls: the wall time of each turn's CallTools (one trajectory in flight by default, so
    // nothing else runs) vs its slowest call replayed alone (same arguments → same latency)
    const toolTurns: ToolTurn[] = [];
    const caller = gatewayTools(stack.client);
    const parallelEngine = await engineFor(
      stack,
      o,
      { sampler: stack.parallelSampler, toolCaller: timedToolCaller(caller, toolTurns) },
      o.parallelConcurrency,
    );
    let parallelRun: RunResult;
    try {
      await runEngine(parallelEngine, makeTasks("warm-parallel", o.parallelConcurrency));
      toolTurns.length = 0;
      parallelRun = await runEngine(parallelEngine, makeTasks("parallel", o.parallelTasks));
    } finally {
      await parallelEngine.close();
    }
    checkComplete("parallel calls", parallelRun.trajectories, o.parallelTasks, o.turns, o.parallelCalls);
    for (const turn of toolTurns) {
      const started = performance.now();
      const [alone] = await caller.callTools([turn.slowest], { trajectoryId: "alone", deadlineMs: 30_000 });
      turn.slowest_alone_ms = performance.now() - started;
      if (alone === undefined || drawnMs(alone.text) !== turn.slowest_drawn_ms)
        throw new Error(`the slowest call of a turn, replayed alone, did not meet the same latency`);
    }
    const turnWalls = sum(toolTurns.map((x) => x.wall_ms));
    const perTurn = (of: (x: ToolTurn) => number) => {
      const r = toolTurns.map((x) => x.wall_ms / of(x));
      return {
        p50: round(quantile(r, 0.5), 3),
        p90: round(quantile(r, 0.9), 3),
        max: round(Math.max(...r), 3),
      };
    };
    const slowestAlone = (x: ToolTurn) => x.slowest_alone_ms ?? Number.NaN;
    log(`parallel   ${toolTurns.length} turns of ${o.parallelCalls} calls`);

    // zero-overhead figures from the latencies the runs drew
    const asyncPaths = asyncRun.trajectories
      .sort((a, b) => a.task_id.localeCompare(b.task_id))
      .map((t) => drawnPath(t, o));
    const idealAsync = idealAsyncMs(
      asyncPaths.map((p) => sum(p.gen) + sum(p.tools)),
      o.concurrency,
    );
    const idealLock = idealLockstepMs(asyncPaths, o.concurrency);
    const batchPaths = asyncPaths.slice(0, o.concurrency);
    const idealBatchAsync = Math.max(...batchPaths.map((p) => sum(p.gen) + sum(p.tools)));
    const idealBatchLock = idealLockstepMs(batchPaths, o.concurrency);

    const ratios = {
      async_vs_lockstep: round(lockRun.wall_ms / asyncRun.wall_ms),
      single_batch_async_vs_lockstep: round(batchLockMs / batchAsyncMs),
      wall_vs_critical_path: round(batchAsyncMs / criticalMs, 3),
      parallel_calls_wall_vs_slowest: round(turnWalls / sum(toolTurns.map(slowestAlone)), 3),
    };
    const report = {
      benchmark: "rollout",
      date: new Date().toISOString(),
      machine: machineInfo(),
      parameters: {
        tasks: o.tasks,
        group_size: 1,
        in_flight: o.concurrency,
        lockstep_batch: o.concurrency,
        tool_turns: o.turns,
        generation_ms: {
          distribution: "uniform",
          min: o.turnMs[0],
          max: o.turnMs[1],
          keyed_on: "seed, prompt ids",
          seed: o.seed,
        },
        tool_ms: {
          distribution: `${round((1 - o.tool.slowFraction) * 100, 1)} % lognormal, ${round(o.tool.slowFraction * 100, 1)} % fixed`,
          lognormal_median: o.tool.medianMs,
          lognormal_sigma: o.tool.sigma,
          slow_fraction: o.tool.slowFraction,
          slow_ms: o.tool.slowMs,
          keyed_on: "seed, call arguments",
          seed: o.tool.seed,
        },
        parallel: {
          calls_per_turn: o.parallelCalls,
          tasks: o.parallelTasks,
          in_flight: o.parallelConcurrency,
        },
        batch_repeats: o.batchRepeats,
        critical_path_replays: o.replays,
        model: "rlf-sim llm --policy parallel-calls (child process), vLLM /v1/completions, Qwen3 tokenizer",
        gateway:
          "rlf gateway in a child process, cache off, tool server over Streamable HTTP in a child process",
      },
      runs: {
        async: { ...runSummary(asyncRun), cpu_s: asyncCpu },
        lockstep: {
          ...runSummary(lockRun),
          cpu_s: lockCpu,
          batch_walls_ms: lockRun.batch_walls_ms.map((x) => round(x, 1)),
        },
        single_batch: { async_wall_ms: batchAsyncMs, lockstep_wall_ms: batchLockMs, repeats: batchRuns },
        critical_path: critical,
        parallel_calls: {
          ...runSummary(parallelRun),
          tool_turns: toolTurns.length,
          turn_wall_ms: {
            p50: round(
              quantile(
                toolTurns.map((x) => x.wall_ms),
                0.5,
              ),
              2,
            ),
          },
          // Σ turn wall / Σ of: the slowest call alone (the ratio), the gateway's latency_ms for it in the
          // turn, the latency the tool server drew for it
          wall_vs_slowest_alone: round(turnWalls / sum(toolTurns.map(slowestAlone)), 3),
          wall_vs_slowest_gateway_latency: round(
            turnWalls / sum(toolTurns.map((x) => x.slowest_gateway_ms)),
            3,
          ),
          wall_vs_slowest_drawn: round(turnWalls / sum(toolTurns.map((x) => x.slowest_drawn_ms)), 3),
          per_turn_wall_vs_slowest_alone: perTurn(slowestAlone),
          per_turn_wall_vs_slowest_drawn: perTurn((x) => x.slowest_drawn_ms),
        },
      },
      ideal: {
        async_wall_ms: round(idealAsync, 1),
        lockstep_wall_ms: round(idealLock, 1),
        async_vs_lockstep: round(idealLock / idealAsync),
        single_batch_async_wall_ms: round(idealBatchAsync, 1),
        single_batch_lockstep_wall_ms: round(idealBatchLock, 1),
        single_batch_async_vs_lockstep: round(idealBatchLock / idealBatchAsync),
        overhead_async: round(asyncRun.wall_ms / idealAsync, 3),
        overhead_lockstep: round(lockRun.wall_ms / idealLock, 3),
      },
      ratios,
      targets: {
        async_vs_lockstep: { min: 3, met: ratios.async_vs_lockstep >= 3 },
        wall_vs_critical_path: { max: 1.1, met: ratios.wall_vs_critical_path <= 1.1 },
        parallel_calls_wall_vs_slowest: { max: 1.05, met: ratios.parallel_calls_wall_vs_slowest <= 1.05 },
      },
    };
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
    log(`ratios ${JSON.stringify(ratios)}; ideal ${JSON.stringify(report.ideal)}; written to ${out}`);
  } finally {
    for (const close of closers.reverse()) await close().catch(() => {});
    for (const c of children) c.kill("SIGTERM");
  }
}

const Flags = z.object({
  out: z.string().min(1).default("bench-rollout.json"),
  tasks: z.coerce.number().int().positive().optional(),
  concurrency: z.coerce.number().int().positive().optional(),
  turns: z.coerce.number().int().positive().optional(),
  "turn-ms": z.string().optional(),
  "tool-median-ms": z.coerce.number().positive().optional(),
  "tool-sigma": z.coerce.number().min(0).optional(),
  "tool-slow-fraction": z.coerce.number().min(0).max(1).optional(),
  "tool-slow-ms": z.coerce.number().min(0).optional(),
  "parallel-calls": z.coerce.number().int().min(1).max(64).optional(),
  "parallel-tasks": z.coerce.number().int().positive().optional(),
  "parallel-concurrency": z.coerce.number().int().positive().optional(),
  "batch-repeats": z.coerce.number().int().positive().optional(),
  replays: z.coerce.number().int().positive().optional(),
  seed: z.coerce.number().int().optional(),
});

export const ROLLOUT_BENCH_USAGE = `npm run bench -- rollout --out FILE.json [--tasks 512] [--concurrency 64] [--turns 4]
    [--turn-ms 50-150] [--tool-median-ms 10] [--tool-sigma 0.5] [--tool-slow-fraction 0.05] [--tool-slow-ms 200]
    [--parallel-calls 8] [--parallel-tasks 8] [--parallel-concurrency 1] [--batch-repeats 3] [--replays 3] [--seed 1]`;

/** The command line of `npm run bench -- rollout`; throws with the usage on a mistake. */
export function rolloutBenchArgs(argv: string[]): { out: string; options: Partial<RolloutBenchOptions> } {
  const f = parseBenchFlags(argv, Flags, ROLLOUT_BENCH_USAGE);
  const tool: LatencyModel = {
    ...DEFAULT_LATENCY_MODEL,
    ...(f["tool-median-ms"] === undefined ? {} : { medianMs: f["tool-median-ms"] }),
    ...(f["tool-sigma"] === undefined ? {} : { sigma: f["tool-sigma"] }),
    ...(f["tool-slow-fraction"] === undefined ? {} : { slowFraction: f["tool-slow-fraction"] }),
    ...(f["tool-slow-ms"] === undefined ? {} : { slowMs: f["tool-slow-ms"] }),
  };
  const options: Partial<RolloutBenchOptions> = { tool };
  if (f.tasks !== undefined) options.tasks = f.tasks;
  if (f.concurrency !== undefined) options.concurrency = f.concurrency;
  if (f.turns !== undefined) options.turns = f.turns;
  if (f["turn-ms"] !== undefined) options.turnMs = parseTurnMs(f["turn-ms"]);
  if (f["parallel-calls"] !== undefined) options.parallelCalls = f["parallel-calls"];
  if (f["parallel-tasks"] !== undefined) options.parallelTasks = f["parallel-tasks"];
  if (f["parallel-concurrency"] !== undefined) options.parallelConcurrency = f["parallel-concurrency"];
  if (f["batch-repeats"] !== undefined) options.batchRepeats = f["batch-repeats"];
  if (f.replays !== undefined) options.replays = f.replays;
  if (f.seed !== undefined) options.seed = f.seed;
  return { out: f.out, options };
}

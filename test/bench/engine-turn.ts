// Engine CPU per turn (JSON output; a benchmark, never a timing assert in a test).
//
//   npm run bench -- engine-turn --out FILE.json [--in-flight 64,512,2048,8192] [--turns 3,11,31]
//                                [--modes lockstep,async] [--tasks 1024]
//
// The rollout bench's stack (test/bench/rollout.ts) with zero latency everywhere: `rlf-sim llm --policy
// parallel-calls` (a child process per turn count, answering at once) behind our vLLM client, `rlf gateway`
// in a child process (cache off) and the latency tool server with every call taking 0 ms. What remains is
// cost: the engine process's CPU time (process.cpuUsage, user + system) over a run, divided by the sampled
// turns it ran, is the engine CPU per turn. The other processes' CPU is reported beside it. The engine
// process runs with the image's Node flags (service-node-flags.ts; main.ts starts it again with them).
//
// A cell is (in flight N, turns T, mode): max(N, --tasks) tasks in rounds of N (group size 1), each T sampled turns
// (T − 1 tool calls, then the answer). `async` is the engine with N in flight; `lockstep` is the same engine
// with a barrier on every phase (rollout.ts's lockstep()). For each turn count, one warm-up cell per mode
// (--tasks tasks at up to 64 in flight, reported as `warm_up`) runs before the grid's cells, in grid order.
// Every cell runs the reference job (reference-job.ts) on the engine's thread and reports the median
// CPU of its two halves, compute and memory: a ratio of two cells' engine CPU means something about the
// engine only where their reference runs cost the same. It also reports how often the engine's thread
// went to sleep and was preempted per turn (`engine_thread_switches_per_turn`).
// For a profile of the engine: node --cpu-prof --cpu-prof-dir DIR test/bench/main.ts engine-turn ...

import type { ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import {
  createSampler,
  gatewayTools,
  type ModelTokenizer,
  qwen3Tokenizer,
  type TokenSampler,
  type ToolCaller,
} from "@rlfactory/rollout";
import { z } from "zod";
import { parseBenchFlags } from "./bench-flags.ts";
import { type ReferenceJobReading, startReferenceJob } from "./reference-job.ts";
import {
  benchEngine,
  cpuBetween,
  elapsedLog,
  lockstep,
  machineInfo,
  makeTasks,
  ScriptTally,
  type StackCpu,
  type Started,
  spawnLatencyGateway,
  stackCpuNow,
  startLatencyServer,
  startSimulatedModel,
  streamEngine,
} from "./rollout.ts";
import { DEFAULT_LATENCY_MODEL } from "./rollout-latency-server.ts";

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

export type EngineTurnMode = "lockstep" | "async";

export interface EngineTurnOptions {
  inFlight: number[];
  /** Sampled turns per trajectory (the last answers, the others call the tool once). */
  turns: number[];
  modes: EngineTurnMode[];
  /**
   * Tasks per cell at least (a cell runs max(tasks, in flight), in rounds of `in flight`). The default,
   * 1,024, keeps a cell at 64 in flight at 16 rounds: a cell of one round (192 turns at 3 turns) measured
   * mostly the JIT and the ramp at its ends: 0.2–0.45 ms per turn more than 16 rounds (docs/benchmarks.md).
   */
  tasks: number;
}

export const DEFAULT_ENGINE_TURN: EngineTurnOptions = {
  inFlight: [64, 512, 2048, 8192],
  turns: [3, 11, 31],
  modes: ["lockstep", "async"],
  tasks: 1024,
};

interface Cell {
  in_flight: number;
  turns: number;
  mode: EngineTurnMode;
  tasks: number;
  sampled_turns: number;
  wall_s: number;
  cpu_s: StackCpu;
  /** Engine CPU per sampled turn, ms. */
  engine_cpu_ms_per_turn: number;
  /** All four processes' CPU per sampled turn, ms. */
  total_cpu_ms_per_turn: number;
  /**
   * The reference job run on the engine's thread during the cell (reference-job.ts): its median CPU
   * per run tells how fast the machine ran the engine under this cell's load. Its CPU is not in the
   * engine's figures above.
   */
  reference_job: Omit<ReferenceJobReading, "cpu_s">;
  /**
   * Context switches of the engine's main thread per sampled turn (Linux; null elsewhere): voluntary
   * ones are the thread going to sleep with nothing to do (each a wake-up later), involuntary ones the
   * kernel taking its core for another process.
   */
  engine_thread_switches_per_turn: Switches | null;
  /** The same for the main thread of each of the stack's other processes. */
  stack_thread_switches_per_turn: Record<Exclude<ProcessName, "engine">, Switches | null>;
  /** Each process's read and write system calls (all its threads) per sampled turn. */
  syscalls_per_turn: Record<ProcessName, Syscalls | null>;
}

/** The cell's switch and system-call figures from two readings of every process. */
function countsPerTurn(
  before: StackCounts,
  after: StackCounts,
  sampled: number,
): Pick<Cell, "engine_thread_switches_per_turn" | "stack_thread_switches_per_turn" | "syscalls_per_turn"> {
  const of = <K extends "switches" | "syscalls">(name: ProcessName, kind: K) => {
    const b = before[name];
    const a = after[name];
    return b === null || a === null ? null : perTurn(b[kind], a[kind], sampled);
  };
  return {
    engine_thread_switches_per_turn: of("engine", "switches"),
    stack_thread_switches_per_turn: {
      gateway: of("gateway", "switches"),
      simulated_model: of("simulated_model", "switches"),
      tool_server: of("tool_server", "switches"),
    },
    syscalls_per_turn: {
      engine: of("engine", "syscalls"),
      gateway: of("gateway", "syscalls"),
      simulated_model: of("simulated_model", "syscalls"),
      tool_server: of("tool_server", "syscalls"),
    },
  };
}

type Switches = { voluntary: number; involuntary: number };
type Syscalls = { read: number; write: number };
type ProcessName = "engine" | "gateway" | "simulated_model" | "tool_server";
/** What a process has done so far (Linux; null elsewhere or where unreadable). */
type ProcessCounts = { switches: Switches; syscalls: Syscalls } | null;
type StackCounts = Record<ProcessName, ProcessCounts>;

/**
 * A process's main thread's context switches (`/proc/PID/task/PID/status`) and the read and write
 * system calls of all its threads (`/proc/PID/io`: syscr, syscw) so far.
 */
function processCounts(pid: number | undefined): ProcessCounts {
  let status: string;
  let io: string;
  try {
    status = readFileSync(`/proc/${pid}/task/${pid}/status`, "utf8");
    io = readFileSync(`/proc/${pid}/io`, "utf8");
  } catch {
    return null;
  }
  const count = (text: string, name: string) =>
    Number(new RegExp(`^${name}:\\s*(\\d+)`, "m").exec(text)?.[1] ?? Number.NaN);
  return {
    switches: {
      voluntary: count(status, "voluntary_ctxt_switches"),
      involuntary: count(status, "nonvoluntary_ctxt_switches"),
    },
    syscalls: { read: count(io, "syscr"), write: count(io, "syscw") },
  };
}

/** Each count's growth between two readings, per sampled turn. */
function perTurn<T extends Record<string, number>>(before: T, after: T, sampled: number): T {
  return Object.fromEntries(
    Object.entries(after).map(([k, v]) => [k, round((v - before[k]!) / sampled)]),
  ) as T;
}

async function runCell(
  parts: { sampler: TokenSampler; toolCaller: ToolCaller; tokenizer: ModelTokenizer; llmUrl: string },
  gatewayAddress: string,
  inFlight: number,
  turns: number,
  mode: EngineTurnMode,
  tasks: number,
  cpuNow: () => StackCpu,
  countsNow: () => StackCounts,
): Promise<Cell> {
  const step = mode === "lockstep" ? lockstep(parts.sampler, parts.toolCaller) : undefined;
  const engine = await benchEngine(
    { llmUrl: parts.llmUrl, gatewayAddress, tokenizer: parts.tokenizer },
    { sampler: step?.sampler ?? parts.sampler, toolCaller: step?.toolCaller ?? parts.toolCaller },
    { maxTurns: turns, inFlight, deadlineMs: 120_000 },
  );
  const all = makeTasks(`t${inFlight}-${turns}-${mode}`, Math.max(tasks, inFlight));
  const reference = startReferenceJob();
  const before = cpuNow();
  const countsBefore = countsNow();
  const started = performance.now();
  // Each trajectory is checked as it finishes and dropped, as a trainer's consumer would take it:
  // holding a cell's records would put them in the engine's heap, for its GC to mark again and again.
  const tally = new ScriptTally(turns - 1);
  let job: ReferenceJobReading;
  try {
    for (let at = 0; at < all.length; at += inFlight) {
      const batch = all.slice(at, at + inFlight);
      step?.begin(batch.length);
      await streamEngine(engine, batch, (t) => {
        tally.add(t);
        step?.leave();
      });
    }
  } finally {
    job = reference.stop();
    await engine.close();
  }
  const wall = (performance.now() - started) / 1000;
  const read = cpuNow();
  const countsAfter = countsNow();
  const after = { ...read, engine: read.engine - job.cpu_s };
  tally.check(`${mode} ${inFlight}×${turns}`, all.length);
  const sampled = tally.sampledTurns;
  const cpu = cpuBetween(before, after);
  const total = cpu.engine + cpu.gateway + cpu.simulated_model + cpu.tool_server;
  return {
    in_flight: inFlight,
    turns,
    mode,
    tasks: all.length,
    sampled_turns: sampled,
    wall_s: round(wall, 2),
    cpu_s: cpu,
    engine_cpu_ms_per_turn: round(((after.engine - before.engine) * 1000) / sampled),
    total_cpu_ms_per_turn: round((total * 1000) / sampled),
    reference_job: { runs: job.runs, median_us: job.median_us, memory_median_us: job.memory_median_us },
    ...countsPerTurn(countsBefore, countsAfter, sampled),
  };
}

export async function benchEngineTurn(out: string, options: Partial<EngineTurnOptions> = {}): Promise<void> {
  const o: EngineTurnOptions = { ...DEFAULT_ENGINE_TURN, ...options };
  const log = elapsedLog(6);
  const children: ChildProcess[] = [];
  const closers: (() => Promise<void>)[] = [];
  try {
    const tokenizerLoading = qwen3Tokenizer();
    const tools = await startLatencyServer({
      ...DEFAULT_LATENCY_MODEL,
      medianMs: 1e-6,
      sigma: 0,
      slowFraction: 0,
    });
    children.push(tools.child);
    const models = new Map<number, Started>();
    for (const turns of o.turns) {
      const m = await startSimulatedModel(1, turns - 1);
      children.push(m.child);
      models.set(turns, m);
    }
    const tokenizer = await tokenizerLoading;
    const gw = await spawnLatencyGateway(tools.found, { max_concurrent: 16_384, max_queue: 65_536 });
    closers.push(() => gw.stop());
    const toolCaller = gatewayTools(gw.client);
    let model: Started = models.get(o.turns[0]!)!;
    const cpuNow = () => stackCpuNow({ gateway: gw.process, model: model.child, tools: tools.child });
    const countsNow = (): StackCounts => ({
      engine: processCounts(process.pid),
      gateway: processCounts(gw.process.pid),
      simulated_model: processCounts(model.child.pid),
      tool_server: processCounts(tools.child.pid),
    });
    const cells: Cell[] = [];
    const warmUp: Cell[] = [];
    for (const turns of o.turns) {
      model = models.get(turns)!;
      const base = createSampler({ engine: "vllm", url: model.found, max_concurrency: 16_384 });
      closers.push(() => base.close());
      // engine.close() closes its sampler: each cell's engine gets one that leaves `base` open
      const sampler: TokenSampler = {
        trainable: true,
        kind: base.kind,
        generate: (request) => base.generate(request),
        close: async () => {},
      };
      const parts = { sampler, toolCaller, tokenizer, llmUrl: model.found };
      // warm-up of this model's connections, the JIT and the tokenizer's caches: a cell of --tasks
      // tasks at up to 64 in flight, each mode, reported apart (`warm_up`)
      const warm = Math.min(64, Math.max(...o.inFlight));
      for (const mode of o.modes) {
        const cell = await runCell(parts, gw.grpcAddress, warm, turns, mode, o.tasks, cpuNow, countsNow);
        warmUp.push(cell);
        log(`warm-up ${JSON.stringify(cell)}`);
      }
      for (const inFlight of o.inFlight) {
        for (const mode of o.modes) {
          const cell = await runCell(
            parts,
            gw.grpcAddress,
            inFlight,
            turns,
            mode,
            o.tasks,
            cpuNow,
            countsNow,
          );
          cells.push(cell);
          log(JSON.stringify(cell));
        }
      }
    }
    const ratios = cells
      .filter((c) => c.mode === "async")
      .flatMap((a) => {
        const l = cells.find(
          (c) => c.mode === "lockstep" && c.in_flight === a.in_flight && c.turns === a.turns,
        );
        return l === undefined
          ? []
          : [
              {
                in_flight: a.in_flight,
                turns: a.turns,
                async_vs_lockstep_engine_cpu: round(a.engine_cpu_ms_per_turn / l.engine_cpu_ms_per_turn),
                /** The same ratio for the reference job: what the machine alone makes of the first. */
                async_vs_lockstep_reference_job: round(a.reference_job.median_us / l.reference_job.median_us),
                /** And for its memory half: what the other processes' memory traffic makes of it. */
                async_vs_lockstep_reference_memory: round(
                  a.reference_job.memory_median_us / l.reference_job.memory_median_us,
                ),
              },
            ];
      });
    const report = {
      benchmark: "engine-turn",
      date: new Date().toISOString(),
      machine: machineInfo(),
      parameters: {
        ...o,
        /** The engine process's Node flags: the rollout service's, as the image runs it. */
        engine_node_flags: process.execArgv.filter((f) => f.startsWith("--max-")),
        model:
          "rlf-sim llm --policy parallel-calls (child process, no latency), vLLM /v1/completions, Qwen3 tokenizer",
        gateway:
          "rlf gateway in a child process, cache off; latency tool server at 0 ms (a timer of under 1 ms) (child process)",
      },
      cells,
      warm_up: warmUp,
      async_vs_lockstep: ratios,
      per_turn_fit: perTurnFit(cells),
    };
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
    log(`written to ${out}`);
  } finally {
    for (const close of closers.reverse()) await close().catch(() => {});
    for (const c of children) c.kill("SIGTERM");
  }
}

/**
 * For each (in flight, mode) measured at two turn counts or more: the engine CPU of a trajectory as a
 * line in its sampled turns, fitted by least squares over the cells. `ms_per_turn` is what one more turn
 * costs; `ms_per_trajectory` what a trajectory costs besides its turns (its prompt rendered and encoded,
 * its record built and scored), which a short trajectory's CPU per turn carries a larger share of.
 */
function perTurnFit(cells: readonly Cell[]) {
  const fits = [];
  for (const inFlight of new Set(cells.map((c) => c.in_flight))) {
    for (const mode of new Set(cells.map((c) => c.mode))) {
      const own = cells.filter((c) => c.in_flight === inFlight && c.mode === mode);
      const points = own.map((c) => ({ x: c.sampled_turns / c.tasks, y: (c.cpu_s.engine * 1000) / c.tasks }));
      const n = points.length;
      const mx = points.reduce((a, p) => a + p.x, 0) / n;
      const my = points.reduce((a, p) => a + p.y, 0) / n;
      const sxx = points.reduce((a, p) => a + (p.x - mx) ** 2, 0);
      if (n < 2 || sxx === 0) continue;
      const slope = points.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0) / sxx;
      fits.push({
        in_flight: inFlight,
        mode,
        turns: own.map((c) => c.turns),
        ms_per_turn: round(slope),
        ms_per_trajectory: round(my - slope * mx),
      });
    }
  }
  return fits;
}

const list = z
  .string()
  .transform((s) => s.split(",").map((x) => Number(x.trim())))
  .pipe(z.array(z.number().int().positive()).min(1));
const Flags = z.object({
  out: z.string().min(1).default("bench-engine-turn.json"),
  "in-flight": list.optional(),
  turns: list.pipe(z.array(z.number().int().min(2))).optional(),
  modes: z
    .string()
    .transform((s) => s.split(",").map((x) => x.trim()))
    .pipe(z.array(z.enum(["lockstep", "async"])).min(1))
    .optional(),
  tasks: z.coerce.number().int().min(0).optional(),
});

export const ENGINE_TURN_USAGE =
  "npm run bench -- engine-turn --out FILE.json [--in-flight 64,512,2048,8192] [--turns 3,11,31] [--modes lockstep,async] [--tasks 1024]";

/** The command line of `npm run bench -- engine-turn`; throws with the usage on a mistake. */
export function engineTurnArgs(argv: string[]): { out: string; options: Partial<EngineTurnOptions> } {
  const f = parseBenchFlags(argv, Flags, ENGINE_TURN_USAGE);
  const options: Partial<EngineTurnOptions> = {};
  if (f["in-flight"] !== undefined) options.inFlight = f["in-flight"];
  if (f.turns !== undefined) options.turns = f.turns;
  if (f.modes !== undefined) options.modes = f.modes;
  if (f.tasks !== undefined) options.tasks = f.tasks;
  return { out: f.out, options };
}

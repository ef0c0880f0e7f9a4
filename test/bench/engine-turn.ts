// Engine CPU per turn (JSON output; a benchmark, never a timing assert in a test).
//
//   npm run bench -- engine-turn --out FILE.json [--in-flight 64,512,2048,8192] [--turns 3,11,31]
//                                [--modes lockstep,async] [--tasks N]
//
// The rollout bench's stack (test/bench/rollout.ts) with zero latency everywhere: `rlf-sim llm --policy
// parallel-calls` (a child process per turn count, answering at once) behind our vLLM client, `rlf gateway`
// in a child process (cache off) and the latency tool server with every call taking 0 ms. What remains is
// cost: the engine process's CPU time (process.cpuUsage, user + system) over a run, divided by the sampled
// turns it ran, is the engine CPU per turn. The other processes' CPU is reported beside it.
//
// A cell is (in flight N, turns T, mode): N tasks (group size 1; at least --tasks), each T sampled turns
// (T − 1 tool calls, then the answer). `async` is the engine with N in flight; `lockstep` is the same engine
// with a barrier on every phase (rollout.ts's lockstep()). Cells run in grid order after one warm-up cell.
// For a profile of the engine: node --cpu-prof --cpu-prof-dir DIR test/bench/main.ts engine-turn ...

import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { parseArgs } from "node:util";
import {
  createRolloutEngine,
  createSampler,
  gatewayTools,
  type ModelTokenizer,
  parseRolloutConfig,
  qwen3Tokenizer,
  type TokenSampler,
  type ToolCaller,
} from "@rlfactory/rollout";
import { spawnGateway } from "@rlfactory/test-support/gateway-harness";
import { z } from "zod";
import {
  checkComplete,
  childCpuS,
  lockstep,
  makeTasks,
  type Started,
  startLatencyServer,
  startSimulatedModel,
} from "./rollout.ts";
import { DEFAULT_LATENCY_MODEL } from "./rollout-latency-server.ts";

const TOOL = "latency__lookup";
const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

export type EngineTurnMode = "lockstep" | "async";

export interface EngineTurnOptions {
  inFlight: number[];
  /** Sampled turns per trajectory (the last answers, the others call the tool once). */
  turns: number[];
  modes: EngineTurnMode[];
  /** Tasks per cell at least (a cell runs max(tasks, in flight)). */
  tasks: number;
}

export const DEFAULT_ENGINE_TURN: EngineTurnOptions = {
  inFlight: [64, 512, 2048, 8192],
  turns: [3, 11, 31],
  modes: ["lockstep", "async"],
  tasks: 0,
};

interface Cell {
  in_flight: number;
  turns: number;
  mode: EngineTurnMode;
  tasks: number;
  sampled_turns: number;
  wall_s: number;
  cpu_s: { engine: number; gateway: number; simulated_model: number; tool_server: number };
  /** Engine CPU per sampled turn, ms. */
  engine_cpu_ms_per_turn: number;
  /** All four processes' CPU per sampled turn, ms. */
  total_cpu_ms_per_turn: number;
}

async function runCell(
  parts: { sampler: TokenSampler; toolCaller: ToolCaller; tokenizer: ModelTokenizer; llmUrl: string },
  gatewayAddress: string,
  inFlight: number,
  turns: number,
  mode: EngineTurnMode,
  tasks: number,
  cpuNow: () => Cell["cpu_s"],
): Promise<Omit<Cell, "in_flight" | "turns" | "mode">> {
  const step = mode === "lockstep" ? lockstep(parts.sampler, parts.toolCaller) : undefined;
  const config = parseRolloutConfig({
    inference: { engine: "vllm", url: parts.llmUrl },
    gateway: { address: gatewayAddress, tools: [TOOL], deadline_ms: 120_000 },
    rollout: {
      group_size: 1,
      max_turns: turns,
      max_concurrency: inFlight,
      sampling: { temperature: 1, top_p: 1, max_tokens: 1024, stop: [] },
    },
    reward: [{ type: "exact_match" }],
  });
  const engine = await createRolloutEngine(config, {
    sampler: step?.sampler ?? parts.sampler,
    toolCaller: step?.toolCaller ?? parts.toolCaller,
    tokenizer: parts.tokenizer,
  });
  const all = makeTasks(`t${inFlight}-${turns}-${mode}`, Math.max(tasks, inFlight));
  const before = cpuNow();
  const started = performance.now();
  const trajectories = [];
  try {
    for (let at = 0; at < all.length; at += inFlight) {
      const batch = all.slice(at, at + inFlight);
      step?.begin(batch.length);
      for await (const group of engine.rollout(batch, { groupSize: 1 })) {
        for (const t of group.trajectories) {
          trajectories.push(t);
          step?.leave();
        }
      }
    }
  } finally {
    await engine.close();
  }
  const wall = (performance.now() - started) / 1000;
  const after = cpuNow();
  checkComplete(`${mode} ${inFlight}×${turns}`, trajectories, all.length, turns - 1);
  const sampled = trajectories.reduce((n, t) => n + t.turns.filter((x) => x.kind === "sampled").length, 0);
  const cpu = {
    engine: round(after.engine - before.engine, 2),
    gateway: round(after.gateway - before.gateway, 2),
    simulated_model: round(after.simulated_model - before.simulated_model, 2),
    tool_server: round(after.tool_server - before.tool_server, 2),
  };
  const total = cpu.engine + cpu.gateway + cpu.simulated_model + cpu.tool_server;
  return {
    tasks: all.length,
    sampled_turns: sampled,
    wall_s: round(wall, 2),
    cpu_s: cpu,
    engine_cpu_ms_per_turn: round(((after.engine - before.engine) * 1000) / sampled),
    total_cpu_ms_per_turn: round((total * 1000) / sampled),
  };
}

export async function benchEngineTurn(out: string, options: Partial<EngineTurnOptions> = {}): Promise<void> {
  const o: EngineTurnOptions = { ...DEFAULT_ENGINE_TURN, ...options };
  const t0 = performance.now();
  const log = (line: string) =>
    process.stderr.write(`[${((performance.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
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
    const gw = await spawnGateway({
      servers: {
        latency: {
          url: tools.found,
          policy: { cache: false, bulkhead: { max_concurrent: 16_384, max_queue: 65_536 } },
        },
      },
    });
    closers.push(() => gw.stop());
    const toolCaller = gatewayTools(gw.client);
    let model: Started = models.get(o.turns[0]!)!;
    const cpuNow = () => {
      const own = process.cpuUsage();
      return {
        engine: (own.user + own.system) / 1e6,
        gateway: childCpuS(gw.process) ?? Number.NaN,
        simulated_model: childCpuS(model.child) ?? Number.NaN,
        tool_server: childCpuS(tools.child) ?? Number.NaN,
      };
    };
    const cells: Cell[] = [];
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
      // warm-up of this model's connections and the JIT: up to 64 trajectories, each mode
      const warm = Math.min(64, Math.max(...o.inFlight));
      for (const mode of o.modes) await runCell(parts, gw.grpcAddress, warm, turns, mode, warm, cpuNow);
      for (const inFlight of o.inFlight) {
        for (const mode of o.modes) {
          const cell = {
            in_flight: inFlight,
            turns,
            mode,
            ...(await runCell(parts, gw.grpcAddress, inFlight, turns, mode, o.tasks, cpuNow)),
          };
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
              },
            ];
      });
    const report = {
      benchmark: "engine-turn",
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpu_model: cpus()[0]?.model ?? "",
        memory_gib: round(totalmem() / 2 ** 30, 1),
        node: process.version,
      },
      parameters: {
        ...o,
        model:
          "rlf-sim llm --policy parallel-calls (child process, no latency), vLLM /v1/completions, Qwen3 tokenizer",
        gateway:
          "rlf gateway in a child process, cache off; latency tool server at 0 ms (a timer of under 1 ms) (child process)",
      },
      cells,
      async_vs_lockstep: ratios,
    };
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
    log(`written to ${out}`);
  } finally {
    for (const close of closers.reverse()) await close().catch(() => {});
    for (const c of children) c.kill("SIGTERM");
  }
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
  "npm run bench -- engine-turn --out FILE.json [--in-flight 64,512,2048,8192] [--turns 3,11,31] [--modes lockstep,async] [--tasks N]";

/** The command line of `npm run bench -- engine-turn`; throws with the usage on a mistake. */
export function engineTurnArgs(argv: string[]): { out: string; options: Partial<EngineTurnOptions> } {
  const strings = Object.fromEntries(Object.keys(Flags.shape).map((k) => [k, { type: "string" as const }]));
  let raw: Record<string, unknown>;
  try {
    raw = parseArgs({ args: argv, options: strings, strict: true, allowPositionals: false }).values;
  } catch (e) {
    throw new Error(`${(e as Error).message}\nusage: ${ENGINE_TURN_USAGE}`);
  }
  const parsed = Flags.safeParse(raw);
  if (!parsed.success) throw new Error(`${z.prettifyError(parsed.error)}\nusage: ${ENGINE_TURN_USAGE}`);
  const f = parsed.data;
  const options: Partial<EngineTurnOptions> = {};
  if (f["in-flight"] !== undefined) options.inFlight = f["in-flight"];
  if (f.turns !== undefined) options.turns = f.turns;
  if (f.modes !== undefined) options.modes = f.modes;
  if (f.tasks !== undefined) options.tasks = f.tasks;
  return { out: f.out, options };
}

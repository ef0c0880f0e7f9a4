// A fixed piece of CPU work, run on the measured process's own thread at a steady pace while a cell
// runs: the same instructions every time, so what one run costs tells how fast this machine runs that
// process under the cell's load (other processes on the same cores, caches shared with them). Two cells
// whose engine CPU differs by as much as their reference runs do differ by the machine, not the code.
// Two halves, timed apart: compute (a regular expression and a hash, in the core's own caches) and
// memory (a dependent walk through 4 MiB, which feels other processes' memory traffic).

import { nearestRankPercentile } from "@rlfactory/kit";

/**
 * A regular expression and a hash over a fixed text of about 16 KB, the kind of work a turn does:
 * nearly nothing allocated, so the job does not make the measured process collect more garbage.
 */
const TEXT = JSON.stringify(
  Array.from({ length: 160 }, (_, i) => ({
    id: i,
    name: `call_${i}`,
    arguments: { query: `population of city number ${i} in 2020`, limit: i % 7 },
    tokens: [i, i + 1, i + 2, i * 3],
  })),
);
const WORDS = /\p{L}+|\p{N}+|[^\s\p{L}\p{N}]+/gu;

function once(): number {
  let n = 0;
  WORDS.lastIndex = 0;
  while (WORDS.test(TEXT)) n++;
  let hash = 0x811c9dc5;
  for (let i = 0; i < TEXT.length; i++) hash = Math.imul(hash ^ TEXT.charCodeAt(i), 0x01000193);
  return n + (hash >>> 0);
}

/**
 * The memory half: a walk of CHASE_STEPS steps along one random cycle through a 4 MiB Int32Array
 * (Sattolo's shuffle, fixed seed), each step a load that depends on the one before. The array is twice
 * an L2 cache of this machine, and the engine and its neighbours push it out between two runs, so a
 * step costs about what a load from memory costs (about 150 ns here): the half follows other
 * processes' memory traffic, which the compute half above (16 KB, in the core's own caches) hardly
 * feels. Measured (docs/benchmarks.md, eleventh round): beside a process writing through 256 MB, the
 * engine's CPU per turn rose by a fifth, this half's median by a tenth, the compute half's not at all.
 */
const CHASE_SLOTS = 1 << 20;
const CHASE_STEPS = 1 << 12;
const CHASE = (() => {
  const next = new Int32Array(CHASE_SLOTS);
  for (let i = 0; i < CHASE_SLOTS; i++) next[i] = i;
  let seed = 0x2545f491;
  for (let i = CHASE_SLOTS - 1; i > 0; i--) {
    seed = (Math.imul(seed, 1103515245) + 12345) | 0;
    const j = (seed >>> 8) % i; // j < i: one cycle through every slot
    const t = next[i]!;
    next[i] = next[j]!;
    next[j] = t;
  }
  return next;
})();
let chaseAt = 0;

function walk(): number {
  let at = chaseAt;
  for (let k = 0; k < CHASE_STEPS; k++) at = CHASE[at]!;
  chaseAt = at;
  return at;
}

export interface ReferenceJobReading {
  /** Runs completed while the cell ran. */
  runs: number;
  /** Median CPU of one run of the compute half (this process, user + system), microseconds. */
  median_us: number;
  /** Median CPU of one run of the memory half (the walk), microseconds. */
  memory_median_us: number;
  /** All runs' CPU together, seconds (to subtract from the process's CPU over the cell). */
  cpu_s: number;
}

/** Starts running the job every `everyMs`; `stop()` ends it and reads what the runs cost. */
export function startReferenceJob(everyMs = 20): { stop(): ReferenceJobReading } {
  const costs: number[] = [];
  const memoryCosts: number[] = [];
  let sink = 0;
  /** Runs `half` once and records its CPU (this process, user + system, µs) in `into`. */
  const timed = (half: () => number, into: number[]) => {
    const before = process.cpuUsage();
    sink += half();
    const d = process.cpuUsage(before);
    into.push(d.user + d.system);
  };
  const run = () => {
    timed(once, costs);
    timed(walk, memoryCosts);
  };
  const timer = setInterval(run, everyMs);
  return {
    /** Runs the job once more (a cell shorter than `everyMs` gets one reading), then stops. */
    stop() {
      clearInterval(timer);
      run();
      if (sink < 0) throw new Error("unreachable: keeps the job's result alive");
      return {
        runs: costs.length,
        median_us: nearestRankPercentile(costs, 50) ?? Number.NaN,
        memory_median_us: nearestRankPercentile(memoryCosts, 50) ?? Number.NaN,
        cpu_s: [...costs, ...memoryCosts].reduce((a, c) => a + c, 0) / 1e6,
      };
    },
  };
}

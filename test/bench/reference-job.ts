// A fixed piece of CPU work, run on the measured process's own thread at a steady pace while a cell
// runs: the same instructions every time, so what one run costs tells how fast this machine runs that
// process under the cell's load (other processes on the same cores, caches shared with them). Two cells
// whose engine CPU differs by as much as their reference runs do differ by the machine, not the code.

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

export interface ReferenceJobReading {
  /** Runs completed while the cell ran. */
  runs: number;
  /** Median CPU of one run (this process, user + system), microseconds. */
  median_us: number;
  /** All runs' CPU together, seconds (to subtract from the process's CPU over the cell). */
  cpu_s: number;
}

/** Starts running the job every `everyMs`; `stop()` ends it and reads what the runs cost. */
export function startReferenceJob(everyMs = 20): { stop(): ReferenceJobReading } {
  const costs: number[] = [];
  let sink = 0;
  const run = () => {
    const before = process.cpuUsage();
    sink += once();
    const d = process.cpuUsage(before);
    costs.push(d.user + d.system);
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
        cpu_s: costs.reduce((a, c) => a + c, 0) / 1e6,
      };
    },
  };
}

// Memory a sandboxed run makes the host hold, watched from the host while it runs: the rise of the
// host's shared memory (/proc/meminfo Shmem: tmpfs files, memfds, SysV and POSIX shared memory, shared
// mappings) plus the private memory of the processes of the given uids (their proportional share of
// anonymous pages, Pss_Anon, so that pages a fork shares are counted once).
import { readdir, readFile } from "node:fs/promises";

const KIB = 1024;

async function shmemBytes(): Promise<number> {
  const text = await readFile("/proc/meminfo", "utf8");
  return Number(/^Shmem:\s+(\d+) kB$/m.exec(text)?.[1] ?? 0) * KIB;
}

/** Whether a process still runs (exists and is no zombie). */
async function running(pid: string): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/**
 * Sum of Pss_Anon of the processes whose real uid is one of `uids`; undefined when a process counted
 * ended while the others were being read (the kernel may meanwhile have handed its memory to another
 * process that is counted too, so the sum is no snapshot; the sample is dropped).
 */
async function anonBytesOf(uids: ReadonlySet<number>): Promise<number | undefined> {
  if (uids.size === 0) return 0;
  let total = 0;
  const counted: string[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let status: string;
    try {
      status = await readFile(`/proc/${entry}/status`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
    if (!uids.has(uid)) continue;
    try {
      const rollup = await readFile(`/proc/${entry}/smaps_rollup`, "utf8");
      const bytes = Number(/^Pss_Anon:\s+(\d+) kB$/m.exec(rollup)?.[1] ?? 0) * KIB;
      if (bytes > 0) counted.push(entry);
      total += bytes;
    } catch {
      // exited meanwhile
    }
  }
  for (const pid of counted) if (!(await running(pid))) return undefined;
  return total;
}

export interface HostMemoryWatch {
  /** Stops sampling; resolves with the largest rise seen over the baseline, in bytes. */
  stop(): Promise<{ peakRiseBytes: number; samples: number }>;
}

/**
 * Takes a baseline, then samples every `intervalMs` until stopped. `uids`: the host uids the watched
 * processes run as (their private memory counts; empty when they cannot be told apart from ours).
 */
export async function watchHostMemory(uids: readonly number[], intervalMs = 20): Promise<HostMemoryWatch> {
  const watched = new Set(uids);
  const baseline = (await shmemBytes()) + ((await anonBytesOf(watched)) ?? 0);
  let peak = 0;
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const shmem = await shmemBytes();
      const anon = await anonBytesOf(watched);
      if (anon !== undefined) {
        peak = Math.max(peak, shmem + anon - baseline);
        samples++;
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { peakRiseBytes: peak, samples };
    },
  };
}

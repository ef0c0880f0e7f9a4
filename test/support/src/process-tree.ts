// Processes on this machine as /proc shows them: who is whose child, and which children carry a
// marker in their environment. Tests use it to find (and kill, or measure) processes a server
// spawned; every read tolerates a process that ends meanwhile.
import { readdirSync, readFileSync } from "node:fs";

/** The parent pid of `pid` (field 4 of /proc/PID/stat, read after the command name), or undefined if gone. */
function parentOf(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[1]);
  } catch {
    return undefined;
  }
}

function livePids(): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/** `pid`'s descendants (children, their children, ...), `pid` itself first when `includeSelf`. */
export function descendantsOf(pid: number, { includeSelf = false } = {}): number[] {
  const children = new Map<number, number[]>();
  for (const p of livePids()) {
    const ppid = parentOf(p);
    if (ppid !== undefined) children.set(ppid, [...(children.get(ppid) ?? []), p]);
  }
  const found: number[] = [];
  const stack = includeSelf ? [pid] : [...(children.get(pid) ?? [])];
  while (stack.length > 0) {
    const p = stack.pop() as number;
    found.push(p);
    stack.push(...(children.get(p) ?? []));
  }
  return found;
}

/** This process's direct children whose environment holds `NAME=value` (`marker`). */
export function childrenWithEnv(marker: string): number[] {
  return livePids().filter((p) => {
    if (parentOf(p) !== process.pid) return false;
    try {
      return readFileSync(`/proc/${p}/environ`, "utf8").split("\0").includes(marker);
    } catch {
      return false;
    }
  });
}

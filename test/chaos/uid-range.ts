// A range of host uids for one chaos scenario's sandboxes that no process on the machine runs as when
// the scenario starts — never the environment host's default (62000) nor the code tool's test ranges —
// so that "a process running as one of these uids" means one of the scenario's own.
import { readdirSync, readFileSync } from "node:fs";

/** Where the search starts: above the environment host's 62000 + its workers, and the tests' 61xxx. */
export const FIRST_CANDIDATE = 63_000;

/** Every uid (real, effective, saved, filesystem) some live process runs as now. */
export function uidsInUse(): Set<number> {
  const uids = new Set<number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const line = /^Uid:\s+(.*)$/m.exec(readFileSync(`/proc/${entry}/status`, "utf8"))?.[1] ?? "";
      for (const uid of line.trim().split(/\s+/)) uids.add(Number(uid));
    } catch {
      // gone meanwhile
    }
  }
  return uids;
}

/** The first base, from FIRST_CANDIDATE in steps of `size`, whose `size` uids no process runs as. */
export function freeUidRange(size: number, inUse: Set<number> = uidsInUse()): number {
  for (let base = FIRST_CANDIDATE; base + size < 2 ** 31; base += size) {
    let free = true;
    for (let uid = base; uid < base + size && free; uid++) free = !inUse.has(uid);
    if (free) return base;
  }
  throw new Error(`no free range of ${size} uids from ${FIRST_CANDIDATE}`);
}

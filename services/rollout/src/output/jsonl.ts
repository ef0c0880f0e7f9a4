// Trajectories as JSONL: one record a line, validated by the contract's `trajectorySchema` on the way
// in and out (the form the Python adapters read: rlfactory_engines.records).
import { appendFile, readFile } from "node:fs/promises";
import { type Trajectory, TrajectoryBuilder, trajectorySchema } from "@rlfactory/contracts";
import { z } from "zod";

/** Appends records to a JSONL file, one line each (validated first; nothing is written if one is bad). */
export async function appendTrajectoriesJsonl(
  path: string,
  records: readonly (Trajectory | TrajectoryBuilder)[],
): Promise<void> {
  const lines = records.map((r) =>
    JSON.stringify(r instanceof TrajectoryBuilder ? r.toJSON() : trajectorySchema.parse(r)),
  );
  if (lines.length > 0) await appendFile(path, `${lines.join("\n")}\n`, "utf8");
}

/** Reads and validates a JSONL file of records; a bad line fails with its line number. */
export async function readTrajectoriesJsonl(path: string): Promise<Trajectory[]> {
  const text = await readFile(path, "utf8");
  const out: Trajectory[] = [];
  for (const [i, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (e) {
      throw new Error(`${path}:${i + 1}: not JSON (${(e as Error).message})`);
    }
    const parsed = trajectorySchema.safeParse(json);
    if (!parsed.success) throw new Error(`${path}:${i + 1}: ${z.prettifyError(parsed.error)}`);
    out.push(parsed.data);
  }
  return out;
}

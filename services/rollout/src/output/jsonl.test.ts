import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Trajectory, TrajectoryBuilder } from "@rlfactory/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendTrajectoriesJsonl, readTrajectoriesJsonl } from "./jsonl.ts";

function sample(): TrajectoryBuilder {
  const b = new TrajectoryBuilder({
    taskId: "t1",
    groupId: "g1",
    sampleIndex: 2,
    promptIds: [1, 2, 3],
    vocabSize: 1000,
  });
  b.appendSampled([10, 11, 12], [-0.1, -2, 0]);
  b.appendObservation([20, 21]);
  b.appendSampled([30], [-0.5]);
  b.setReward(1, { em: 1 });
  b.finish("completed");
  return b;
}

describe("JSONL files", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "trajectory-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("appends one validated line per record and reads them back", async () => {
    const path = join(dir, "rollouts.jsonl");
    await appendTrajectoriesJsonl(path, [sample(), good()]);
    await appendTrajectoriesJsonl(path, [sample()]);
    const text = await readFile(path, "utf8");
    expect(text.trimEnd().split("\n")).toHaveLength(3);
    const back = await readTrajectoriesJsonl(path);
    expect(back).toEqual([good(), good(), good()]);
    await expect(appendTrajectoriesJsonl(path, [good(), { ...good(), loss_mask: [] }])).rejects.toThrow();
    expect(await readFile(path, "utf8")).toBe(text); // nothing written when one record is bad
  });

  it("names the bad line when reading", async () => {
    const path = join(dir, "bad.jsonl");
    await writeFile(
      path,
      `${JSON.stringify(good())}\n${JSON.stringify({ ...good(), sample_index: -1 })}\n{oops\n`,
    );
    await expect(readTrajectoriesJsonl(path)).rejects.toThrow(/bad\.jsonl:2: .*sample_index/s);
  });

  function good(): Trajectory {
    return sample().toJSON();
  }
});

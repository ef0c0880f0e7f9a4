import { execFile } from "node:child_process";
import { access, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type Trajectory, TrajectoryBuilder } from "@rlfactory/contracts";
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from "hyparquet";
import { type ColumnSource, parquetWriteFile } from "hyparquet-writer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelTokenizer, qwen3Tokenizer } from "../tokenizer/model-tokenizer.ts";
import {
  iterateTrajectoriesParquet,
  readTrajectoriesParquet,
  TRAJECTORY_PARQUET_SCHEMA,
  TRAJECTORY_PARQUET_VERSION_KEY,
  TrajectoryParquetWriter,
  writeTrajectoriesParquet,
} from "./parquet.ts";

const execFileAsync = promisify(execFile);

let dir: string;
let tok: ModelTokenizer;
let pieces: { prompt: number[]; think: number[]; call: number[]; obs: number[]; answer: number[] };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rlf-parquet-"));
  tok = await qwen3Tokenizer();
  const prompt = tok.renderChat(
    [
      { role: "system", content: "Answer with <answer>…</answer>." },
      { role: "user", content: "Were Scott Derrickson and Ed Wood of the same nationality?" },
    ],
    { addGenerationPrompt: true },
  );
  pieces = {
    prompt: tok.encode(prompt),
    think: tok.encode("<think>\nI should look both of them up.\n</think>\n\n"),
    call: tok.encode(
      '<tool_call>\n{"name": "search", "arguments": {"query": "Scott Derrickson"}}\n</tool_call><|im_end|>',
    ),
    obs: tok.encode(
      "\n<|im_start|>user\n<tool_response>\nScott Derrickson (born July 16, 1966) is an American director.\n</tool_response><|im_end|>\n<|im_start|>assistant\n",
    ),
    answer: tok.encode("<think>\nBoth are American.\n</think>\n\n<answer> yes </answer><|im_end|>"),
  };
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Deterministic logprobs ≤ 0, with extremes a float32 column would lose. */
const logprobs = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => {
    const k = (i * 7919 + seed * 104729) % 1000;
    return k === 0 ? -Number.MIN_VALUE : k === 1 ? -1e-300 : -(k / 97.3) - 1 / 3;
  });

/** A realistic trajectory: Qwen3 ids, n tool round trips, and every nullable field varied by index. */
function trajectory(i: number, rounds = 1 + (i % 3)): Trajectory {
  const b = new TrajectoryBuilder({
    taskId: `hotpot_dev_${i >> 2}`,
    groupId: `g${i >> 2}`,
    sampleIndex: i % 4,
    promptIds: pieces.prompt,
    vocabSize: tok.vocabSize,
    policyVersion: i % 5 === 0 ? null : i % 5 === 1 ? `weights-${i}` : i % 5 === 2 ? "7" : i,
    ...(i % 2 === 0 ? { metadata: { trajectory_id: `tr-${i}`, nested: { a: [1, null, "x"] } } } : {}),
  });
  for (let r = 0; r < rounds; r++) {
    const ids = [...pieces.think, ...pieces.call];
    const turn = b.appendSampled(ids, logprobs(ids.length, i + r), i % 7 === 0 ? {} : { policyVersion: i });
    b.recordToolCall({
      name: "search__search",
      arguments: { query: `q${i}.${r}` },
      result: r % 2 === 0 ? "Scott Derrickson (born July 16, 1966)…" : "",
      latency_ms: 3.25 * r,
      error_code: r % 2 === 0 ? null : "TIMEOUT",
      is_error: r % 2 !== 0,
      turn,
    });
    b.appendObservation(pieces.obs);
  }
  b.appendSampled(pieces.answer, logprobs(pieces.answer.length, i));
  b.addTiming("generate_ms", 10 + i);
  b.addTiming("tool_ms", 0.5);
  if (i % 4 !== 3) b.setReward(i % 2 === 0 ? 1.1 : 0, { em: i % 2 === 0 ? 1 : 0, format: 0.1 });
  b.finish(i % 6 === 5 ? "truncated" : "completed", i % 6 === 5 ? "max_context_tokens" : null);
  const t: Trajectory = b.toJSON();
  if (i % 4 === 3) {
    t.reward_error = { component: "judge", code: "UNAVAILABLE", message: "judge down" };
    t.advantage = null;
  } else if (i % 4 === 1) {
    t.advantage = (i % 8) / 8 - 0.5;
  }
  if (i % 3 === 0) t.turn_rewards = t.turns.map((x) => (x.kind === "sampled" ? 0.25 : 0));
  return t;
}

/** What a record reads back as: a null optional field comes back absent. */
function asRead(t: Trajectory): Trajectory {
  const out = { ...t };
  if (out.advantage === null) delete out.advantage;
  if (out.reward_error === null) delete out.reward_error;
  return out;
}

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );
const tokens = (t: Trajectory) => t.prompt_ids.length + t.response_ids.length;

describe("trajectory Parquet", () => {
  it("round-trips 1,024 Qwen3 trajectories, nulls and absent fields included, over several row groups", async () => {
    const records = Array.from({ length: 1024 }, (_, i) => trajectory(i));
    const path = join(dir, "round-trip.parquet");
    const budget = 50_000;
    await writeTrajectoriesParquet(path, records, { rowGroupTokens: budget });
    const back = await readTrajectoriesParquet(path);
    expect(back).toStrictEqual(records.map(asRead));
    // types survive: a numeric and a numeric-looking string policy version stay apart
    expect(back[3]!.policy_version).toBe(3);
    expect(back[2]!.policy_version).toBe("7");
    expect(back[0]!.policy_version).toBeNull();
    expect(back[0]!.rollout_logprobs).toContain(-Number.MIN_VALUE);

    const meta = await parquetMetadataAsync(await asyncBufferFromFile(path));
    expect(Number(meta.num_rows)).toBe(1024);
    const maxOne = Math.max(...records.map(tokens));
    let at = 0;
    for (const g of meta.row_groups) {
      const n = Number(g.num_rows);
      const groupTokens = records.slice(at, at + n).reduce((s, t) => s + tokens(t), 0);
      expect(groupTokens).toBeLessThan(budget + maxOne);
      at += n;
    }
    expect(meta.row_groups.length).toBeGreaterThanOrEqual(
      Math.ceil(records.reduce((s, t) => s + tokens(t), 0) / (budget + maxOne)),
    );
  });

  it("stores token arrays as native lists and nested records as JSON text, as documented", async () => {
    const path = join(dir, "layout.parquet");
    await writeTrajectoriesParquet(path, [trajectory(3), trajectory(4)]);
    const file = await asyncBufferFromFile(path);
    const meta = await parquetMetadataAsync(file);
    expect(meta.key_value_metadata).toContainEqual({ key: TRAJECTORY_PARQUET_VERSION_KEY, value: "1" });
    const leaf = (name: string) => {
      const i = meta.schema.findIndex((e) => e.name === name);
      return { top: meta.schema[i]!, element: meta.schema[i + 2]! };
    };
    for (const [name, type, converted] of [
      ["prompt_ids", "INT32", undefined],
      ["response_ids", "INT32", undefined],
      ["loss_mask", "INT32", "INT_8"],
      ["rollout_logprobs", "DOUBLE", undefined],
    ] as const) {
      expect(leaf(name).top.converted_type).toBe("LIST");
      expect(leaf(name).element).toMatchObject({ name: "element", type, repetition_type: "REQUIRED" });
      expect(leaf(name).element.converted_type).toBe(converted);
    }
    // a generic reader sees plain values: lists of numbers, strings, JSON text, int64 policy step
    const [row] = await parquetReadObjects({ file, rowEnd: 1 });
    const t = trajectory(3);
    expect(row!.response_ids).toEqual(t.response_ids);
    expect(row!.loss_mask).toEqual(t.loss_mask);
    expect(JSON.parse(row!.turns as string)).toEqual(t.turns);
    expect(JSON.parse(row!.reward_error as string)).toEqual(t.reward_error);
    expect(row!.reward).toBeNull();
    expect(row!.policy_version).toBe("3");
    expect(row!.policy_step).toBe(3n);
  });

  it("streams: batches go out as row groups, the file appears only on close, and iterate reads group by group", async () => {
    const path = join(dir, "stream.parquet");
    const writer = await TrajectoryParquetWriter.open(path, { rowGroupRows: 64 });
    // overlapping calls are written in call order
    await Promise.all(
      Array.from({ length: 5 }, (_, b) =>
        writer.write(Array.from({ length: 50 }, (_, k) => trajectory(b * 50 + k))),
      ),
    );
    expect(writer.rows).toBe(250);
    expect(await exists(path)).toBe(false);
    await writer.close();
    const meta = await parquetMetadataAsync(await asyncBufferFromFile(path));
    expect(meta.row_groups.map((g) => Number(g.num_rows))).toEqual([64, 64, 64, 58]);
    const seen: string[] = [];
    for await (const t of iterateTrajectoriesParquet(path)) seen.push(`${t.group_id}/${t.sample_index}`);
    expect(seen).toEqual(Array.from({ length: 250 }, (_, i) => `g${i >> 2}/${i % 4}`));
    await expect(writer.write([trajectory(0)])).rejects.toThrow(/writer is closed/);
  });

  it("writes nothing when a trajectory is invalid, and leaves no temporary file", async () => {
    const path = join(dir, "invalid", "x.parquet");
    await rm(join(dir, "invalid"), { recursive: true, force: true });
    await mkdir(join(dir, "invalid"));
    const bad = { ...trajectory(1), loss_mask: trajectory(1).loss_mask.slice(1) };
    await expect(writeTrajectoriesParquet(path, [trajectory(0), trajectory(2), bad])).rejects.toThrow(
      /trajectory 2: .*loss_mask/s,
    );
    expect(await readdir(join(dir, "invalid"))).toEqual([]);
  });

  it("writes and reads an empty file", async () => {
    const path = join(dir, "empty.parquet");
    await writeTrajectoriesParquet(path, []);
    expect(await readTrajectoriesParquet(path)).toEqual([]);
  });

  it("names the row of a bad cell and refuses a Parquet file that is not trajectories", async () => {
    const good = trajectory(4);
    const path = join(dir, "bad-cell.parquet");
    const cells: Record<string, unknown[]> = {
      schema_version: [1, 1],
      task_id: [good.task_id, good.task_id],
      group_id: [good.group_id, good.group_id],
      sample_index: [0, 1],
      policy_version: [null, null],
      policy_step: [null, null],
      prompt_ids: [good.prompt_ids, good.prompt_ids],
      response_ids: [good.response_ids, good.response_ids],
      loss_mask: [good.loss_mask, good.loss_mask],
      rollout_logprobs: [good.rollout_logprobs, good.rollout_logprobs],
      reward: [null, null],
      advantage: [null, null],
      status: ["completed", "completed"],
      status_reason: [null, null],
      turns: [JSON.stringify(good.turns), "[{kind"],
      tool_calls: ["[]", "[]"],
      reward_components: ["{}", "{}"],
      reward_error: [null, null],
      turn_rewards: [null, null],
      timings: ["{}", "{}"],
      metadata: [null, null],
    };
    const columnData = Object.entries(cells).map(([name, data]) => ({ name, data })) as ColumnSource[];
    parquetWriteFile({ filename: path, schema: [...TRAJECTORY_PARQUET_SCHEMA], columnData });
    await expect(readTrajectoriesParquet(path)).rejects.toThrow(
      /bad-cell\.parquet: row 1: column turns is not JSON/,
    );

    const other = join(dir, "other.parquet");
    parquetWriteFile({ filename: other, columnData: [{ name: "id", data: ["a"], type: "STRING" }] });
    await expect(readTrajectoriesParquet(other)).rejects.toThrow(
      /not a trajectory Parquet file \(missing columns: schema_version/,
    );
  });

  it("writes 512 trajectories of 4k tokens in bounded row groups, within a 96 MB heap", async () => {
    // A child process with a capped heap writes the batch: one real 4k-token trajectory, 512 times
    // under different ids (shared arrays: the input itself is small). Row groups of the default
    // 262,144-token budget fit; the whole batch as one group (about 190 MB of heap) would not.
    const one = trajectory(1, 64);
    const each = tokens(one);
    expect(each).toBeGreaterThan(4000);
    const input = join(dir, "one.json");
    const path = join(dir, "large.parquet");
    await writeFile(input, JSON.stringify(one));
    const script = fileURLToPath(import.meta.resolve("@rlfactory/test-support/write-parquet-copies"));
    await execFileAsync(process.execPath, ["--max-old-space-size=96", script, input, "512", path]);

    const meta = await parquetMetadataAsync(await asyncBufferFromFile(path));
    const sizes = meta.row_groups.map((g) => Number(g.num_rows));
    // a group closes on the trajectory that reaches the budget
    const perGroup = Math.ceil(262_144 / each);
    expect(sizes).toEqual([
      ...Array(Math.floor(512 / perGroup)).fill(perGroup),
      ...(512 % perGroup ? [512 % perGroup] : []),
    ]);
    // reading goes group by group and stops when the caller does
    const seen: Trajectory[] = [];
    for await (const t of iterateTrajectoriesParquet(path)) {
      seen.push(t);
      if (seen.length === perGroup + 1) break;
    }
    expect(seen.map((t) => `${t.group_id}/${t.sample_index}`)).toEqual(
      Array.from({ length: perGroup + 1 }, (_, i) => `g${i >> 2}/${i % 4}`),
    );
    expect(seen[perGroup]).toStrictEqual({
      ...one,
      group_id: `g${perGroup >> 2}`,
      sample_index: perGroup % 4,
    });
    // the child encodes about 2 M tokens: a safety limit for a loaded CI machine (it took 30 s there once)
  }, 180_000);
});

// The contract's trajectory through the TypeScript transports, field for field: TS → Parquet → TS and
// TS → gRPC (real protobuf bytes) → TS, and a structural check that the Parquet columns and the proto
// messages carry every field of the zod schema. A field added to the contract but not to the Parquet
// writer/reader or to the proto + codec fails here.

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { groupFromProto, groupToProto } from "@rlfactory/clients";
import {
  contractJsonSchemas,
  rewardErrorSchema,
  type Trajectory,
  toolCallRecordSchema,
  trajectoryImageSchema,
  trajectorySchema,
  turnSchema,
} from "@rlfactory/contracts";
import { loadRolloutProto, readTrajectoriesParquet, writeTrajectoriesParquet } from "@rlfactory/rollout";
import { contractTrajectories, fieldsCovered } from "@rlfactory/test-support/contract-trajectories";
import { asyncBufferFromFile, parquetMetadataAsync } from "hyparquet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const cases = contractTrajectories();
const fields = (schema: { shape: object }) => Object.keys(schema.shape).sort();

/** Proto field names that differ from the record's: JSON values travel as JSON text. */
const PROTO_NAME: Record<string, string> = { metadata: "metadata_json", arguments: "arguments_json" };
/** Parquet columns that are not record fields: the version as a number, so `7` and `"7"` stay apart. */
const PARQUET_ONLY = ["policy_step"];

describe("the round-trip cases", () => {
  it("set every field of the record, and leave out every optional one somewhere", () => {
    const covered = fieldsCovered(cases);
    expect([...covered.top].sort()).toEqual(fields(trajectorySchema));
    const required = new Set(contractJsonSchemas()["trajectory.schema.json"].required);
    const optionalFields = fields(trajectorySchema).filter((k) => !required.has(k));
    expect([...covered.absentSomewhere].sort()).toEqual(optionalFields);
    expect([...covered.turn].sort()).toEqual(fields(turnSchema));
    expect([...covered.toolCall].sort()).toEqual(fields(toolCallRecordSchema));
    expect([...covered.image].sort()).toEqual(fields(trajectoryImageSchema));
  });
});

describe("Parquet", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "contract-parquet-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("has a column for every field of the record", async () => {
    const path = join(dir, "columns.parquet");
    await writeTrajectoriesParquet(path, cases);
    const meta = await parquetMetadataAsync(await asyncBufferFromFile(path));
    const top: string[] = [];
    let i = 1; // children of the root, skipping the elements nested in list columns
    while (i < meta.schema.length) {
      const element = meta.schema[i]!;
      top.push(element.name);
      i += 1 + nestedCount(meta.schema, i);
    }
    expect(top.filter((c) => !PARQUET_ONLY.includes(c)).sort()).toEqual(fields(trajectorySchema));
  });

  it("reads back every trajectory field for field (a null advantage or reward_error as absent)", async () => {
    const path = join(dir, "roundtrip.parquet");
    await writeTrajectoriesParquet(path, cases);
    expect(await readTrajectoriesParquet(path)).toStrictEqual(cases.map(afterParquet));
  });
});

describe("gRPC", () => {
  const method = loadRolloutProto().grpc.rlfactory.v1.RolloutService.service.Rollout;
  const { definition } = loadRolloutProto();
  const protoFields = (message: string): string[] => {
    const type = (definition[`rlfactory.v1.${message}`] as { type: { field: { name: string }[] } }).type;
    return type.field.map((f) => f.name).sort();
  };
  const wire = (schema: { shape: object }) =>
    Object.keys(schema.shape)
      .map((k) => PROTO_NAME[k] ?? k)
      .sort();

  it("has a proto field for every field of the record and of its nested records", () => {
    expect(protoFields("Trajectory")).toEqual(wire(trajectorySchema));
    expect(protoFields("Turn")).toEqual(wire(turnSchema));
    expect(protoFields("ToolCallRecord")).toEqual(wire(toolCallRecordSchema));
    expect(protoFields("RewardError")).toEqual(wire(rewardErrorSchema));
    expect(protoFields("TrajectoryImage")).toEqual(wire(trajectoryImageSchema));
  });

  it("decodes every trajectory field for field from real protobuf bytes (as the codec documents)", () => {
    const group = {
      taskId: "t",
      groupId: "g",
      trajectories: cases,
      stats: { count: 4, scored: 2, mean: 0.375, std: 0.375, min: 0, max: 0.75, all_equal: false },
    };
    const back = groupFromProto(method.responseDeserialize(method.responseSerialize(groupToProto(group))));
    expect(back.trajectories).toStrictEqual(cases.map(afterGrpc));
  });
});

/** docs/trajectory.md "Parquet": a null advantage or reward_error reads back as an absent field. */
function afterParquet(t: Trajectory): Trajectory {
  const out = { ...t };
  if (out.advantage === null) delete out.advantage;
  if (out.reward_error === null) delete out.reward_error;
  return out;
}

/**
 * trajectory-codec.ts: logprobs are float32 on the wire; a version string of digits decodes as the
 * number; an absent advantage / reward_error decodes as null; `stale: false` and an empty
 * turn_rewards as no key.
 */
function afterGrpc(t: Trajectory): Trajectory {
  const version = (v: number | string | null) =>
    typeof v === "string" && /^(0|-?[1-9]\d*)$/.test(v) ? Number(v) : v;
  const out: Trajectory = {
    ...t,
    policy_version: version(t.policy_version),
    rollout_logprobs: t.rollout_logprobs.map(Math.fround),
    turns: t.turns.map((turn) =>
      turn.policy_version == null ? turn : { ...turn, policy_version: version(turn.policy_version) },
    ),
    advantage: t.advantage ?? null,
    reward_error: t.reward_error ?? null,
  };
  if (out.stale !== true) delete out.stale;
  if (out.turn_rewards?.length === 0) delete out.turn_rewards;
  return trajectorySchema.parse(out);
}

/** How many schema elements below element i belong to it (its nested children, recursively). */
function nestedCount(schema: readonly { num_children?: number }[], i: number): number {
  let count = 0;
  for (let k = 0; k < (schema[i]!.num_children ?? 0); k++) count += 1 + nestedCount(schema, i + 1 + count);
  return count;
}

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { contractJsonSchemas } from "./json-schema.ts";
import { taskSchema } from "./task.ts";
import { TRAJECTORY_INVARIANTS, trajectorySchema } from "./trajectory.ts";

const committed = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`../../proto/schema/${name}`, import.meta.url), "utf8"));

describe("the contract's JSON Schema files", () => {
  it("are what npm run gen writes from the zod schemas (run it after changing a record)", () => {
    for (const [name, schema] of Object.entries(contractJsonSchemas())) {
      expect(committed(name), `proto/schema/${name} is stale: run npm run gen`).toEqual(schema);
    }
  });

  it("list every field of each record, and the trajectory's invariants in its description", () => {
    const trajectory = committed("trajectory.schema.json") as { properties: object; description: string };
    expect(Object.keys(trajectory.properties)).toEqual(Object.keys(trajectorySchema.shape));
    for (const invariant of TRAJECTORY_INVARIANTS) expect(trajectory.description).toContain(invariant);
    const task = committed("task.schema.json") as { properties: object; required: string[] };
    expect(Object.keys(task.properties)).toEqual(Object.keys(taskSchema.shape));
    // a task file may leave out what has a default
    expect(task.required).toEqual(["id", "prompt"]);
  });
});

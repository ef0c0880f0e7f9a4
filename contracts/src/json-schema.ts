// The contract as JSON Schema (draft 2020-12), for readers in other languages: generated from the zod
// schemas by `npm run gen` into proto/schema (committed; CI fails when they are stale). A task file is
// input (defaults may be left out); a trajectory is output (every field as written). What JSON Schema
// cannot say (alignment of the arrays, turn coverage, ...) is in each schema's description.
import { z } from "zod";
import { taskSchema } from "./task.ts";
import { trajectorySchema } from "./trajectory.ts";

/** File name in proto/schema → its JSON Schema. */
export function contractJsonSchemas(): Record<
  "task.schema.json" | "trajectory.schema.json",
  { properties: Record<string, unknown>; required: string[] }
> {
  return {
    "task.schema.json": objectSchema(z.toJSONSchema(taskSchema, { io: "input", target: "draft-2020-12" })),
    "trajectory.schema.json": objectSchema(
      z.toJSONSchema(trajectorySchema, { io: "output", target: "draft-2020-12" }),
    ),
  };
}

function objectSchema(schema: Record<string, unknown>): {
  properties: Record<string, unknown>;
  required: string[];
} {
  if (typeof schema.properties !== "object" || !Array.isArray(schema.required))
    throw new Error("a record's JSON Schema must be an object schema with properties and required");
  return schema as { properties: Record<string, unknown>; required: string[] };
}

// docs/trajectory.md says which consumer reads which field of the trajectory record and which Parquet
// columns carry them; both tables are held to the contract's schema.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { trajectorySchema } from "@rlfactory/contracts";
import { ROOT } from "@rlfactory/test-support/gateway-harness";
import { codeSpans, markdownTable, readDoc } from "@rlfactory/test-support/markdown";
import { describe, expect, it } from "vitest";

const doc = readDoc("docs/trajectory.md");
const FIELDS = Object.keys(trajectorySchema.shape);

describe("docs/trajectory.md", () => {
  it("has one row per record field, in the schema's order, in its table of consumers", () => {
    const rows = markdownTable(doc, "record field");
    expect(rows.map((r) => codeSpans(r["record field"]!)[0])).toEqual(FIELDS);
    for (const row of rows)
      for (const [consumer, cell] of Object.entries(row)) expect(cell, consumer).not.toBe("");
  });

  it("lists every field in its Parquet columns, plus policy_step", () => {
    const columns = markdownTable(doc, "column").flatMap((r) => codeSpans(r.column!));
    expect(columns.sort()).toEqual([...FIELDS, "policy_step"].sort());
  });

  it("names schema files that exist", () => {
    for (const file of ["proto/schema/task.schema.json", "proto/schema/trajectory.schema.json"]) {
      expect(doc).toContain(`\`${file}\``);
      expect(existsSync(join(ROOT, file))).toBe(true);
    }
  });
});

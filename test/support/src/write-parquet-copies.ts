// Test helper, run by parquet.test.ts in a child process with a capped heap:
// `node write-parquet-copies.ts ONE.json N OUT.parquet` writes N copies of one trajectory (distinct group ids
// and sample indices, shared arrays) with the default row-group budget.
import { readFileSync } from "node:fs";
import { writeTrajectoriesParquet } from "@rlfactory/rollout";

const [input, count, out] = process.argv.slice(2);
if (input === undefined || count === undefined || out === undefined) {
  throw new Error("usage: write-parquet-copies.ts ONE.json N OUT.parquet");
}
const one = JSON.parse(readFileSync(input, "utf8"));
const records = Array.from({ length: Number(count) }, (_, i) => ({
  ...one,
  group_id: `g${i >> 2}`,
  sample_index: i % 4,
}));
await writeTrajectoriesParquet(out, records);

// Writes the contract's JSON Schema files (proto/schema/*.schema.json) from the zod schemas in
// contracts/src; `npm run gen` runs it, and CI fails when the committed files differ from its output.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { contractJsonSchemas } from "../src/json-schema.ts";

const outDir = resolve(dirname(fileURLToPath(import.meta.url)), "../../proto/schema");
mkdirSync(outDir, { recursive: true });
const files = contractJsonSchemas();
for (const [name, schema] of Object.entries(files)) {
  writeFileSync(join(outDir, name), `${JSON.stringify(schema, null, 2)}\n`);
}
console.log(`generated ${Object.keys(files).join(", ")} in ${outDir}`);

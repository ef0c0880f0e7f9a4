// Generates TypeScript types for every file of proto/rlfactory/v1 into proto/src/generated (committed;
// CI checks they are fresh). The flags come from PROTO_LOADER_OPTIONS, the options the runtime loader
// uses, so the types describe exactly the objects grpc-js hands us.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PROTO_FILES, PROTO_ROOT } from "../src/load-service-proto.ts";
import { generatorFlags } from "../src/loader-options.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const outDir = join(PROTO_ROOT, "src/generated");

rmSync(outDir, { recursive: true, force: true });
execFileSync(
  join(root, "node_modules/.bin/proto-loader-gen-types"),
  [
    ...generatorFlags(),
    "--includeComments",
    "--grpcLib=@grpc/grpc-js",
    "-I",
    PROTO_ROOT,
    "-O",
    outDir,
    ...Object.values(PROTO_FILES),
  ],
  { stdio: "inherit" },
);
for (const file of walk(outDir)) {
  const text = readFileSync(file, "utf8")
    // Node's type stripping and `moduleResolution: nodenext` need explicit extensions on relative imports.
    .replace(/from '(\.{1,2}\/[^']+)'/g, "from '$1.ts'")
    // Keep the output independent of where the repository is checked out.
    .replaceAll(`// Original file: ${root}/`, "// Original file: ");
  writeFileSync(file, text);
}
console.log(`generated types for ${Object.values(PROTO_FILES).join(", ")} in ${outDir}`);

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

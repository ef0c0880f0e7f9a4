// Generates TypeScript types for proto/ into gateway/src/generated (committed; CI checks they are fresh).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const outDir = join(root, "gateway/src/generated");
rmSync(outDir, { recursive: true, force: true });
execFileSync(
  join(root, "node_modules/.bin/proto-loader-gen-types"),
  [
    "--keepCase",
    "--longs=String",
    "--enums=String",
    "--defaults",
    "--arrays",
    "--oneofs",
    "--includeComments",
    "--grpcLib=@grpc/grpc-js",
    "-I",
    join(root, "proto"),
    "-O",
    outDir,
    "rlfactory/v1/gateway.proto",
  ],
  { stdio: "inherit" },
);

// Node's type stripping and `moduleResolution: nodenext` need explicit extensions on relative imports.
function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}
for (const file of walk(outDir)) {
  const text = readFileSync(file, "utf8")
    .replace(/from '(\.{1,2}\/[^']+)'/g, "from '$1.ts'")
    // Keep the output independent of where the repository is checked out.
    .replaceAll(`// Original file: ${root}/`, "// Original file: ");
  writeFileSync(file, text);
}
console.log(`generated types in ${outDir}`);

// Generates TypeScript types for proto/ (committed; CI checks they are fresh): gateway.proto into
// gateway/src/generated, rollout.proto into services/trainer/src/generated, judge.proto into
// services/judge/src/generated.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Each proto file and the folder its types go to (the folder is emptied first). */
const TARGETS = [
  { proto: "rlfactory/v1/gateway.proto", outDir: join(root, "gateway/src/generated") },
  { proto: "rlfactory/v1/rollout.proto", outDir: join(root, "services/trainer/src/generated") },
  { proto: "rlfactory/v1/judge.proto", outDir: join(root, "services/judge/src/generated") },
];

for (const { proto, outDir } of TARGETS) {
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
      proto,
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
  console.log(`generated types for ${proto} in ${outDir}`);
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

// Generates, from proto/rlfactory/v1, into proto/src/generated (committed; CI checks they are fresh):
//  - TypeScript types for every file (proto-loader-gen-types). The flags come from PROTO_LOADER_OPTIONS,
//    the options the runtime loader uses, so the types describe exactly the objects grpc-js hands us;
//  - for the files in STATIC_CODEC_FILES, a static codec in generated/codec/: `<file>.js` (pbjs
//    static-module; needs only protobufjs/minimal at run time), its types `<file>.d.ts` (pbts) and
//    `<file>-services.ts`, the file's services as method tables over that codec, which
//    src/static-client.ts turns into grpc-js client classes without parsing a .proto at run time.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";
import { PROTO_FILES, PROTO_ROOT, type ProtoFile } from "../src/load-service-proto.ts";
import { generatorFlags } from "../src/loader-options.ts";

/** The files whose clients are built on a static codec (the CLI's gateway client). */
const STATIC_CODEC_FILES: ProtoFile[] = [PROTO_FILES.gateway];

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const outDir = join(PROTO_ROOT, "src/generated");
const bin = (name: string) => join(root, "node_modules/.bin", name);

rmSync(outDir, { recursive: true, force: true });
execFileSync(
  bin("proto-loader-gen-types"),
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

for (const file of STATIC_CODEC_FILES) writeStaticCodec(file);
console.log(`generated static codecs for ${STATIC_CODEC_FILES.join(", ")} in ${join(outDir, "codec")}`);

function writeStaticCodec(file: ProtoFile): void {
  const name = basename(file, ".proto");
  const codecDir = join(outDir, "codec");
  mkdirSync(codecDir, { recursive: true });
  // keepCase as PROTO_LOADER_OPTIONS; only what a grpc-js client uses: encode, decode, from/toObject.
  // Its own protobuf.roots entry, so that another static module cannot replace its types.
  const pbjs = (out: string, ...extra: string[]) =>
    execFileSync(bin("pbjs"), [
      ...["-t", "static-module", "-w", "es6", "--keep-case", "-p", PROTO_ROOT, "-r", `rlfactory-${name}`],
      ...["--no-verify", "--no-delimited", "--no-typeurl", "--no-service", "--no-create", ...extra],
      ...["-o", out, join(PROTO_ROOT, file)],
    ]);
  // pbts reads the JSDoc comments; the module that runs is written without them.
  const tmp = mkdtempSync(join(tmpdir(), "rlf-pbjs-"));
  try {
    const commented = join(tmp, `${name}.js`);
    pbjs(commented);
    execFileSync(bin("pbts"), ["--no-comments", "-o", join(codecDir, `${name}.d.ts`), commented]);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const js = join(codecDir, `${name}.js`);
  pbjs(js, "--no-comments");
  // Node's ESM loader resolves no extension-less subpath of protobufjs (it has no exports map), and
  // the CommonJS module's properties are on its default export.
  const from = 'import * as $protobuf from "protobufjs/minimal";';
  const text = readFileSync(js, "utf8");
  if (!text.includes(from))
    throw new Error(`pbjs output of ${file} no longer imports protobufjs as expected`);
  writeFileSync(js, text.replace(from, 'import $protobuf from "protobufjs/minimal.js";'));
  writeFileSync(join(codecDir, `${name}-services.ts`), servicesModule(file, name));
}

/** `<file>-services.ts`: each service of `file` as { name, methods } over the codec's message types. */
function servicesModule(file: ProtoFile, name: string): string {
  const reflected = new protobuf.Root();
  reflected.resolvePath = (_origin, target) => (target.startsWith("/") ? target : join(PROTO_ROOT, target));
  reflected.loadSync(file, { keepCase: true }).resolveAll();
  const services = reflected.nestedArray
    .flatMap(function all(o: protobuf.ReflectionObject): protobuf.ReflectionObject[] {
      return o instanceof protobuf.Namespace ? [o, ...o.nestedArray.flatMap(all)] : [o];
    })
    .filter(
      (o): o is protobuf.Service => o instanceof protobuf.Service && o.filename === join(PROTO_ROOT, file),
    );
  const type = (t: protobuf.Type | null) => `codec.${t!.fullName.slice(1)}`;
  const lines = [
    `// Generated by proto/scripts/gen-proto-types.ts from ${file}; do not edit.`,
    `// The file's services as method tables over its static codec (./${name}.js), for static-client.ts.`,
    `import * as codec from "./${name}.js";`,
    "",
  ];
  for (const service of services) {
    const fullName = service.fullName.slice(1);
    lines.push(`export const ${service.name} = {`, `  name: "${fullName}",`, "  methods: {");
    for (const method of service.methodsArray) {
      lines.push(
        `    ${method.name}: {`,
        `      path: "/${fullName}/${method.name}",`,
        `      originalName: "${method.name.charAt(0).toLowerCase()}${method.name.slice(1)}",`,
        `      requestStream: ${Boolean(method.requestStream)},`,
        `      responseStream: ${Boolean(method.responseStream)},`,
        `      requestType: ${type(method.resolvedRequestType)},`,
        `      responseType: ${type(method.resolvedResponseType)},`,
        "    },",
      );
    }
    lines.push("  },", "} as const;", "");
  }
  return lines.join("\n");
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

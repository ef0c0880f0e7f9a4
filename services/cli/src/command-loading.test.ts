// Each command loads only what it uses (docs/benchmarks.md "CLI start-up"): checked by what the child
// process reports it loaded (the module-load probe, an --import hook), not by how long it took.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const RLF = join(resolve(dirname(fileURLToPath(import.meta.url)), ".."), "bin/rlf.js");
const PROBE = import.meta.resolve("@rlfactory/test-support/module-load-probe");
const dir = mkdtempSync(join(tmpdir(), "rlf-loading-"));
const run = promisify(execFile);

interface Loaded {
  code: number;
  stderr: string;
  modules: string[];
}

/** Runs `rlf ARGS` under the probe: its exit code, stderr and every module it loaded. */
async function loads(name: string, ...args: string[]): Promise<Loaded> {
  const out = join(dir, `${name}.json`);
  const env: NodeJS.ProcessEnv = { ...process.env, RLF_LOAD_PROBE_OUT: out };
  delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete env.OTEL_TRACES_EXPORTER;
  let code = 0;
  let stderr = "";
  try {
    ({ stderr } = await run(process.execPath, ["--import", PROBE, RLF, ...args], { env, encoding: "utf8" }));
  } catch (err) {
    ({ code, stderr } = err as { code: number; stderr: string });
  }
  const { modules } = JSON.parse(readFileSync(out, "utf8")) as { modules: string[] };
  return { code, stderr, modules };
}

const packagesOf = (modules: string[]) =>
  new Set(modules.flatMap((m) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(m)?.[1] ?? []));
const workspaceFiles = (modules: string[], folder: string) =>
  modules.filter((m) => m.includes(`/${folder}/src/`)).map((m) => m.slice(m.indexOf(`/${folder}/src/`) + 1));

/** What no quick command may load: servers, the OTel SDK, the calculator's math library, validators. */
const HEAVY = [
  "fastify",
  "@opentelemetry/sdk-node",
  "mathjs",
  "ajv",
  "@modelcontextprotocol/server",
  "ioredis",
];

/** The files of protobufjs/minimal (its reader, writer and utilities; no parser, reflection or codegen). */
const PROTOBUFJS_MINIMAL = new Set([
  "minimal.js",
  "src/index-minimal.js",
  "src/writer.js",
  "src/writer_buffer.js",
  "src/reader.js",
  "src/reader_buffer.js",
  "src/util/minimal.js",
  "src/util/longbits.js",
  "src/rpc.js",
  "src/rpc/service.js",
  "src/roots.js",
]);

describe("what a command loads", () => {
  it("rlf tools list against an unreachable gateway: the gateway client only", async () => {
    const { code, stderr, modules } = await loads("tools-list", "tools", "list", "--gateway", "127.0.0.1:1");
    expect(code).toBe(1);
    expect(stderr).toContain("gateway 127.0.0.1:1");
    const packages = packagesOf(modules);
    expect(packages).toContain("@grpc/grpc-js");
    for (const heavy of [...HEAVY, "zod", "grpc-health-check", "@grpc/proto-loader", "@opentelemetry/core"])
      expect(packages).not.toContain(heavy);
    // the static codec generated from gateway.proto: protobufjs/minimal, no .proto parser or reflection
    const protobufjs = modules.flatMap((m) => /node_modules\/protobufjs\/(.*)$/.exec(m)?.[1] ?? []);
    expect(protobufjs).toContain("minimal.js");
    expect(protobufjs.filter((f) => !PROTOBUFJS_MINIMAL.has(f))).toEqual([]);
    // the gateway client (with its CallToolsStream channel), nothing of the server or the engine
    expect(workspaceFiles(modules, "clients").sort()).toEqual([
      "clients/src/call-tools-stream.ts",
      "clients/src/gateway-client.ts",
    ]);
    expect(workspaceFiles(modules, "gateway")).toEqual([]);
    expect(workspaceFiles(modules, "rollout")).toEqual([]);
  });

  it("rlf data hotpotqa: its converter and nothing of the search server or the rollout engine", async () => {
    const input = join(dir, "hotpot.json");
    writeFileSync(input, JSON.stringify([{ question: "q", context: [["Ed Wood", ["A filmmaker."]]] }]));
    const out = join(dir, "corpus.jsonl");
    const { code, modules } = await loads("hotpotqa", "data", "hotpotqa", "--in", input, "--out", out);
    expect(code).toBe(0);
    expect(readFileSync(out, "utf8")).toContain("A filmmaker.");
    expect(workspaceFiles(modules, "services/tools").sort()).toEqual([
      "services/tools/src/search/hotpotqa-corpus.ts",
      "services/tools/src/search/passage.ts",
    ]);
    expect(workspaceFiles(modules, "services/rollout")).toEqual([]);
    for (const heavy of [...HEAVY, "@grpc/grpc-js"]) expect(packagesOf(modules)).not.toContain(heavy);
  });

  it("rlf tool calculator --help: the server entries, not the calculator (nor mathjs)", async () => {
    const { code, modules } = await loads("calculator-help", "tool", "calculator", "--help");
    expect(code).toBe(0);
    expect(packagesOf(modules)).not.toContain("mathjs");
    expect(workspaceFiles(modules, "services/tools")).not.toContain(
      "services/tools/src/calculator/calculator-server.ts",
    );
  });

  it("rlf --help and rlf CMD --help load no package at all", async () => {
    for (const args of [["--help"], ["rollout", "serve", "--help"]]) {
      const { code, modules } = await loads(args.join("-"), ...args);
      expect(code).toBe(0);
      expect([...packagesOf(modules)]).toEqual([]);
    }
  });
});

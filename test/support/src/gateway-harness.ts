// Helpers for the gateway's cross-process tests: real gateways (in this process or as `rlf gateway`
// child processes), real MCP servers in child processes, a real redis-server. Everything binds to
// 127.0.0.1 and is torn down by the returned stop functions.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { GatewayClient } from "@rlfactory/clients";
import { type GatewayHandle, normaliseConfig, startGateway } from "@rlfactory/gateway";
import { pino } from "pino";
import { waitFor } from "./wait-for.ts";

export { waitFor };

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const RLF = join(ROOT, "services/cli/src/main.ts");
/** `rlf-sim`: the development simulators' command (simulators/). */
export const RLF_SIM = join(ROOT, "simulators/bin/rlf-sim.js");
export const TESTBED = join(ROOT, "test/support/src/testbed-server.ts");
export const EVERYTHING = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

export function tempDir(prefix = "rlf-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A stdio testbed server entry for a gateway config. */
export function testbedStdio(eventsFile?: string, extra: Record<string, unknown> = {}) {
  return {
    command: process.execPath,
    args: [TESTBED, "--stdio"],
    env: eventsFile ? { TESTBED_EVENTS: eventsFile } : {},
    ...extra,
  };
}

export interface InProcessGateway {
  gateway: GatewayHandle;
  client: GatewayClient;
  stop(): Promise<void>;
}

/** A gateway in this process (ports chosen by the OS), ready when every upstream is. */
export async function startTestGateway(
  raw: Record<string, unknown>,
  opts: { apiKey?: string } = {},
): Promise<InProcessGateway> {
  const config = normaliseConfig({ grpc: { port: 0 }, admin: { port: 0 }, ...raw }, ROOT);
  const gateway = await startGateway(config, {
    log: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
  });
  try {
    await gateway.waitReady(30_000);
  } catch (err) {
    await gateway.close();
    throw err;
  }
  const client = new GatewayClient(gateway.grpcAddress, opts.apiKey ? { apiKey: opts.apiKey } : {});
  return {
    gateway,
    client,
    async stop() {
      client.close();
      await gateway.close();
    },
  };
}

export interface ChildGateway {
  grpcAddress: string;
  adminUrl: string;
  process: ChildProcess;
  client: GatewayClient;
  stop(): Promise<void>;
}

/** `rlf gateway --config FILE` as a child process; resolves once it logs "gateway listening". */
export async function spawnGateway(
  raw: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<ChildGateway> {
  const dir = tempDir("rlf-gw-");
  const file = join(dir, "gateway.json");
  writeFileSync(file, JSON.stringify({ grpc: { port: 0 }, admin: { port: 0 }, ...raw }, null, 2));
  const child = spawn(process.execPath, [RLF, "gateway", "--config", file], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const listening = await new Promise<{ grpc: string; admin: string }>((resolvePromise, reject) => {
    // Generous: a loaded 2-core CI machine starts the gateway and its stdio servers slowly.
    const timer = setTimeout(() => reject(new Error(`gateway did not start in 50 s: ${stderr}`)), 50_000);
    child.once("exit", (code) => reject(new Error(`gateway exited with ${code}: ${stderr}`)));
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      try {
        const rec = JSON.parse(line) as { msg?: string; grpc?: string; admin?: string };
        if (rec.msg === "gateway listening" && rec.grpc && rec.admin) {
          clearTimeout(timer);
          resolvePromise({ grpc: rec.grpc, admin: rec.admin });
        }
      } catch {
        // not a log line
      }
    });
  });
  const client = new GatewayClient(listening.grpc);
  await waitFor(async () => (await fetch(`${listening.admin}/readyz`)).ok, 30_000, "gateway upstreams ready");
  return {
    grpcAddress: listening.grpc,
    adminUrl: listening.admin,
    process: child,
    client,
    stop: async () => {
      client.close();
      await stopChild(child);
    },
  };
}

export async function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolvePromise) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(kill);
      resolvePromise();
    });
    child.kill("SIGTERM");
  });
}

/** A free loopback port (for servers that cannot bind port 0 and report it). */
export function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      const port = typeof address === "object" && address ? address.port : 0;
      srv.close(() => resolvePromise(port));
    });
  });
}

/** A real redis-server on a loopback port (`port`, else a free one), with persistence off. */
export async function startRedis(
  opts: { port?: number } = {},
): Promise<{ url: string; stop(): Promise<void> }> {
  const port = opts.port ?? (await freePort());
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  await new Promise<void>((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error("redis-server did not start")), 10_000);
    child.once("error", (err) =>
      reject(new Error(`cannot run redis-server (.ci/run installs it): ${err.message}`)),
    );
    child.stdout?.on("data", (d: Buffer) => {
      if (d.toString().includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolvePromise();
      }
    });
  });
  return { url: `redis://127.0.0.1:${port}`, stop: () => stopChild(child) };
}

/** Readiness JSON of a gateway's admin surface. */
export async function readyz(adminUrl: string): Promise<{
  status: string;
  upstreams: { name: string; state: string; breaker: string; detail: string }[];
}> {
  return (await (await fetch(`${adminUrl}/readyz`)).json()) as never;
}

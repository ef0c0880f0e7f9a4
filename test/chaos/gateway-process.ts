// `rlf gateway --config FILE` as a child process for the chaos scenarios: ready once it logs
// "gateway listening" (its upstreams need not be ready), with everything it wrote kept, so a scenario
// can tell whether it crashed and whether its output leaked stack traces.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { RLF, ROOT, stopChild } from "@rlfactory/test-support/gateway-harness";

export interface GatewayProcess {
  grpcAddress: string;
  adminUrl: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** True when the process has exited (or been killed) before stop(). */
  exited(): boolean;
  stop(): Promise<void>;
}

/** This process's environment with `env` applied; an undefined value removes the variable. */
function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "info" };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete merged[k];
    else merged[k] = v;
  }
  return merged;
}

function writeConfig(dir: string, raw: Record<string, unknown>): string {
  const file = join(dir, `gateway-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify({ grpc: { port: 0 }, admin: { port: 0 }, ...raw }, null, 2));
  return file;
}

/** Starts a gateway process; rejects with its output if it exits or does not listen within 60 s. */
export async function startGatewayProcess(
  dir: string,
  raw: Record<string, unknown>,
  env: Record<string, string | undefined> = {},
): Promise<GatewayProcess> {
  const child = spawn(process.execPath, [RLF, "gateway", "--config", writeConfig(dir, raw)], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let stopping = false;
  child.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  const listening = await new Promise<{ grpc: string; admin: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not listen in 60 s:\n${output}`)), 60_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code}:\n${output}`));
    });
    createInterface({ input: child.stdout! }).on("line", (line) => {
      output += `${line}\n`;
      try {
        const rec = JSON.parse(line) as { msg?: string; grpc?: string; admin?: string };
        if (rec.msg === "gateway listening" && rec.grpc && rec.admin) {
          clearTimeout(timer);
          resolve({ grpc: rec.grpc, admin: rec.admin });
        }
      } catch {
        // not a log line
      }
    });
  });
  return {
    grpcAddress: listening.grpc,
    adminUrl: listening.admin,
    child,
    output: () => output,
    exited: () => !stopping && (child.exitCode !== null || child.signalCode !== null),
    async stop() {
      stopping = true;
      await stopChild(child);
    },
  };
}

/** Runs a gateway that is expected to refuse its config: its exit code and output (60 s at most). */
export function refusedGateway(
  dir: string,
  raw: Record<string, unknown>,
  env: Record<string, string | undefined>,
): Promise<{ code: number | null; output: string; listened: boolean }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [RLF, "gateway", "--config", writeConfig(dir, raw)],
      { cwd: ROOT, env: childEnv(env), timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? ((err as { code?: number }).code ?? null) : 0;
        resolve({
          code: typeof code === "number" ? code : null,
          output: `${stdout}${stderr}`,
          listened: stdout.includes("gateway listening"),
        });
      },
    );
  });
}

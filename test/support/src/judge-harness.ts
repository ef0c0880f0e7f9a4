// `rlf judge` as a child process for the judge's cross-process tests: started on free ports (port 0),
// ready once it prints its addresses, stopped with SIGTERM. Its stderr is kept for assertions.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Metadata, type ServiceError } from "@grpc/grpc-js";
import { JudgeClient } from "@rlfactory/clients";
import type { JudgeResponse__Output } from "@rlfactory/proto/types/JudgeResponse";
import { stringify } from "yaml";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const RLF = join(ROOT, "services/cli/src/main.ts");
const READY = /rlf judge: HTTP (http:\/\/\S+)\/v1\/judge, gRPC (\S+)/;

export interface ChildJudge {
  httpUrl: string;
  grpcAddress: string;
  process: ChildProcess;
  stderr(): string;
  /** POST /v1/judge; the status and the JSON body. */
  post(
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; json: Record<string, unknown> }>;
  /** rlfactory.v1.Judge/Judge over gRPC, with optional metadata. */
  grpc(request: Record<string, unknown>, metadata?: Record<string, string>): Promise<JudgeResponse__Output>;
  stop(): Promise<void>;
}

/** Writes `config` as YAML to a temp file; returns its path. */
export function writeConfig(config: Record<string, unknown>): string {
  const path = join(mkdtempSync(join(tmpdir(), "rlf-judge-")), "judge.yaml");
  writeFileSync(path, stringify(config));
  return path;
}

/** The environment without any JUDGE_* / OTEL_* variables of the developer's shell. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("JUDGE_") && !k.startsWith("OTEL_")),
  );
  return { ...env, LOG_LEVEL: "warn", ...extra };
}

export async function spawnJudge(args: string[], env: NodeJS.ProcessEnv = cleanEnv()): Promise<ChildJudge> {
  const child = spawn(process.execPath, [RLF, "judge", "--http-port", "0", "--grpc-port", "0", ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const ready = new Promise<RegExpMatchArray>((resolveReady, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`rlf judge did not start in 120 s:\n${stderr}`)),
      120_000,
    );
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const m = READY.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolveReady(m);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`rlf judge exited (${code}) before it was ready:\n${stderr}`));
    });
  });
  const [, httpUrl = "", grpcAddress = ""] = await ready;
  const client = new JudgeClient(grpcAddress).raw;
  return {
    httpUrl,
    grpcAddress,
    process: child,
    stderr: () => stderr,
    async post(body, headers = {}) {
      const res = await fetch(`${httpUrl}/v1/judge`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    },
    grpc(request, metadata = {}) {
      const md = new Metadata();
      for (const [k, v] of Object.entries(metadata)) md.set(k, v);
      return new Promise((resolveCall, reject) =>
        client.Judge(request, md, { deadline: Date.now() + 20_000 }, (err: ServiceError | null, res) =>
          err || !res ? reject(err) : resolveCall(res),
        ),
      );
    },
    async stop() {
      client.close();
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      const kill = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(kill);
    },
  };
}

/**
 * About 99,000 characters of pseudo-random words from `seed`: rule graders (Levenshtein, LCS) over two
 * of these take seconds each, which is what the judge's grader deadline and pool are tested against.
 */
export function longGradingText(seed: number): string {
  const words: string[] = [];
  let x = seed;
  let length = 0;
  while (length < 99_000) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    const word = `w${x % 977}`;
    words.push(word);
    length += word.length + 1;
  }
  return words.join(" ").slice(0, 99_000);
}

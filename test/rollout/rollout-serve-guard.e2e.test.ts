// `rlf rollout serve` bounds who calls it and whom it calls: started before its gateway it waits,
// saying so, and serves once the gateway is up; with `service.auth.api_keys_env` every route but
// /healthz needs a key (an unset variable stops it at start, naming the variable); a request naming an
// inference server outside the allow-list (the config's servers and loopback by default) is refused
// with 403 before anything is sent to it.
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import {
  type ChildGateway,
  freePort,
  RLF,
  ROOT,
  spawnGateway,
  stopChild,
  tempDir,
  testbedStdio,
} from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const KEY = "rollout-test-key-123";
const task = { id: "q1", prompt: [{ role: "user", content: "Who directed Doctor Strange?" }] };

interface Served {
  child: ChildProcess;
  lines: string[];
  /** Resolves with the HTTP URL once it logs "rollout service listening"; rejects if it exits first. */
  listening: Promise<string>;
}

function serve(config: string, env: NodeJS.ProcessEnv = {}): Served {
  const child = spawn(
    process.execPath,
    [RLF, "rollout", "serve", "--config", config, "--grpc-port", "0", "--http-port", "0"],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const lines: string[] = [];
  createInterface({ input: child.stderr! }).on("line", (l) => lines.push(l));
  const listening = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (l) => {
      lines.push(l);
      if (l.includes("rollout service listening")) resolve((JSON.parse(l) as { http: string }).http);
    });
    child.once("exit", (code) => reject(new Error(`rollout serve exited ${code}:\n${lines.join("\n")}`)));
  });
  listening.catch(() => {});
  return { child, lines, listening };
}

function post(url: string, body: unknown, key?: string): Promise<Response> {
  return fetch(`${url}/v1/rollout`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
}

describe("rlf rollout serve", () => {
  let sim: SimulatedLlm;
  let gateway: ChildGateway | undefined;
  const children: ChildProcess[] = [];
  const dir = tempDir("rlf-rollout-guard-");

  function writeConfig(name: string, gatewayAddress: string, extra: string[] = []): string {
    const file = join(dir, name);
    writeFileSync(
      file,
      [
        `inference: { engine: vllm, urls: [${sim.url}] }`,
        `gateway: { address: "${gatewayAddress}" }`,
        "rollout: { group_size: 2, max_turns: 2, sampling: { max_tokens: 64 } }",
        "reward: { components: [{ type: format, weight: 1 }] }",
        ...extra,
      ].join("\n"),
    );
    return file;
  }

  beforeAll(async () => {
    sim = await startSimulatedLlm({ policy: "search-then-answer", seed: 1 });
  });
  afterAll(async () => {
    for (const c of children) await stopChild(c);
    await gateway?.stop();
    await sim?.close();
  });

  it("waits for a gateway that is not up yet, says so, and serves once it is", async () => {
    const port = await freePort();
    const served = serve(writeConfig("wait.yaml", `127.0.0.1:${port}`));
    children.push(served.child);
    const waiting = () =>
      served.lines.some((l) => l.includes(`waiting for the gateway at 127.0.0.1:${port}`));
    while (!waiting()) {
      if (served.child.exitCode !== null)
        throw new Error(`exited ${served.child.exitCode}:\n${served.lines.join("\n")}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    gateway = await spawnGateway({ grpc: { port }, servers: { testbed: testbedStdio() } });
    const url = await served.listening;
    const res = await post(url, { tasks: [task] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { groups: { trajectories: unknown[] }[] };
    expect(body.groups[0]?.trajectories).toHaveLength(2);
    expect(served.lines.some((l) => l.includes(`the gateway at 127.0.0.1:${port} is up`))).toBe(true);
  }, 120_000);

  it("needs an API key with service.auth and refuses inference servers outside the allow-list", async () => {
    if (!gateway) throw new Error("the previous test starts the gateway");
    const config = writeConfig("guarded.yaml", gateway.grpcAddress, [
      "service: { auth: { api_keys_env: RLF_TEST_ROLLOUT_KEYS } }",
    ]);
    const served = serve(config, { RLF_TEST_ROLLOUT_KEYS: KEY });
    children.push(served.child);
    const url = await served.listening;

    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await post(url, { tasks: [task] })).status).toBe(401);
    expect((await post(url, { tasks: [task] }, "wrong-key-456789")).status).toBe(401);
    expect((await fetch(`${url}/v1/policy_version`)).status).toBe(401);

    const foreign = await post(
      url,
      { tasks: [task], inference: { urls: ["http://10.255.255.1:8000"] } },
      KEY,
    );
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: string }).error).toContain(
      "http://10.255.255.1:8000 is not an allowed inference server",
    );
    // Loopback is allowed by default: the configured simulator under another spelling.
    const local = await post(
      url,
      { tasks: [task], inference: { urls: [sim.url.replace("127.0.0.1", "localhost")] } },
      KEY,
    );
    expect(local.status).toBe(200);
  }, 120_000);

  it("stops at start when service.auth.api_keys_env names an unset variable", async () => {
    if (!gateway) throw new Error("the first test starts the gateway");
    const config = writeConfig("unset.yaml", gateway.grpcAddress, [
      "service: { auth: { api_keys_env: RLF_TEST_ROLLOUT_KEYS_UNSET } }",
    ]);
    const served = serve(config, {});
    children.push(served.child);
    await expect(served.listening).rejects.toThrow(
      /service\.auth\.api_keys_env: RLF_TEST_ROLLOUT_KEYS_UNSET is not set/,
    );
    expect(served.child.exitCode).not.toBe(0);
  }, 60_000);
});

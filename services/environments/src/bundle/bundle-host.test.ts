// A bundle served by the sandboxed workers, without MCP: the state is the episode's data, a tool's
// failure and a call past the call timeout are tool errors and the episode goes on, a task offers
// only its tools.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { KV_BUNDLE } from "@rlfactory/test-support/kv-bundle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PythonEnvironmentHost, WorkerEvent } from "../python-environment-host.ts";
import { bundleResult, bundleState, readBundle, startBundleHost, writeBundle } from "./index.ts";

function haveBubblewrap(): boolean {
  const probe = spawnSync("bwrap", [
    ...["--unshare-all", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib"],
    ...["--symlink", "usr/lib64", "/lib64", "/usr/bin/python3", "-c", "pass"],
  ]);
  if (probe.status === 0) return true;
  const message = `bundle host: bubblewrap cannot start a sandbox here (${probe.error?.message ?? probe.stderr?.toString().trim()})`;
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

describe.skipIf(!haveBubblewrap())("startBundleHost", () => {
  const dir = mkdtempSync(join(tmpdir(), "rlf-bundle-host-"));
  let host: PythonEnvironmentHost;
  beforeAll(async () => {
    await writeBundle(dir, {
      ...KV_BUNDLE,
      tools: [
        ...KV_BUNDLE.tools,
        { name: "fail", description: "Raises", parameters: { type: "object", properties: {} } },
      ],
      code: { ...KV_BUNDLE.code, fail: "def fail(data):\n    return data['missing']\n" },
      tasks: [{ id: "only-get", tools: ["get"] }],
    });
    host = await startBundleHost(await readBundle(dir), { workers: 1, callTimeoutS: 1 });
  });
  afterAll(async () => {
    await host?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps the episode's data, answers failures and timeouts as tool errors, and goes on", async () => {
    const h = await host.create({ data: { a: "1" } });
    const put = await host.call(h, "put", { key: "b", value: "2" });
    expect(put.ok && bundleResult(put.value)).toEqual({ text: '{"ok": true}', structured: { ok: true } });
    // arguments that do not bind to the function: the function's own signature (less data) decides
    expect(await host.call(h, "get", { name: "b" })).toMatchObject({
      ok: false,
      error: { code: "BAD_ARGUMENTS" },
    });
    const failed = await host.call(h, "fail", {});
    expect(failed).toEqual({ ok: false, error: { code: "TOOL_ERROR", message: "KeyError: 'missing'" } });
    const slow = await host.call(h, "append", { key: "c", value: "x", delay_ms: 5_000 });
    expect(slow).toEqual({
      ok: false,
      error: { code: "TOOL_ERROR", message: "CallTimeout: the call timed out" },
    });
    const got = await host.call(h, "get", { key: "b" });
    expect(got.ok && bundleResult(got.value).text).toBe('{"value": "2"}');
    expect(bundleState("environment", await host.close(h))).toEqual({ a: "1", b: "2" });
  });

  it("lets a task's episode call only the task's tools", async () => {
    const h = await host.create({ task: "only-get" });
    expect((await host.call(h, "get", { key: "a" })).ok).toBe(true);
    const put = await host.call(h, "put", { key: "a", value: "1" });
    expect(put).toEqual({
      ok: false,
      error: { code: "TOOL_ERROR", message: "PermissionError: task 'only-get' does not offer the tool put" },
    });
    expect(bundleState("environment", await host.close(h))).toEqual({});
    await expect(host.create({ task: "nope" })).rejects.toThrow(/unknown task 'nope'/);
  });
});

describe.skipIf(!haveBubblewrap())("startBundleHost when the bundle changes on disk", () => {
  it("verifies each file whenever a worker loads it: a respawned worker refuses edited code, naming the file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rlf-bundle-edit-"));
    await writeBundle(dir, KV_BUNDLE);
    const host = await startBundleHost(await readBundle(dir), { workers: 1 });
    const events: WorkerEvent[] = [];
    host.on("worker", (event) => events.push(event));
    try {
      const h = await host.create({ data: { a: "1" } });
      expect((await host.call(h, "get", { key: "a" })).ok).toBe(true);
      writeFileSync(join(dir, "code/get.py"), "def get(data, key):\n    return {'value': 'edited'}\n");
      const [pid] = await host.workerPids();
      process.kill(pid!, "SIGKILL");
      for (let i = 0; i < 1_000 && host.episodeCount > 0; i++) await sleep(10);
      await expect(host.call(h, "get", { key: "a" })).rejects.toMatchObject({ code: "EPISODE_LOST" });
      const refused = await host.create({}).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(refused?.message).toMatch(/code\/get\.py: digest mismatch/);
      // and the host says so (the CLI logs these events)
      expect(events.map((e) => e.kind)).toEqual(["exited", "start_failed"]);
      expect(events[1]?.reason).toMatch(/code\/get\.py: digest mismatch/);
    } finally {
      await host.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// The console behind an API key, as the gateway: `rlf console` bound beyond loopback refuses to start
// without --api-keys-env (a variable of comma-separated keys, the gateway's auth.api_keys_env rule);
// with keys, every /api request needs `authorization: Bearer KEY`, and the app in a real browser asks
// for the key once, then shows the runs.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RLF, ROOT, tempDir } from "@rlfactory/test-support/gateway-harness";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleInChromium, openConsoleInChromium } from "./console-in-chromium.ts";
import { startConsoleProcess } from "./console-process.ts";

const KEY = "console-test-key-123";

/** A run directory of one minimal trajectory. */
function writeRun(runsDir: string, name: string): void {
  const dir = join(runsDir, name);
  mkdirSync(dir, { recursive: true });
  const t = {
    schema_version: 1,
    task_id: "t0",
    group_id: "t0#0",
    sample_index: 0,
    policy_version: null,
    prompt_ids: [1, 2],
    response_ids: [3, 4],
    loss_mask: [1, 1],
    rollout_logprobs: [-0.1, -0.2],
    turns: [{ kind: "sampled", start: 0, end: 2 }],
    tool_calls: [],
    reward: 1,
    reward_components: { exact_match: 1 },
    status: "completed",
    status_reason: null,
    timings: {},
  };
  writeFileSync(join(dir, "trajectories.jsonl"), `${JSON.stringify(t)}\n`);
  writeFileSync(join(dir, "summary.json"), JSON.stringify({ config: null }));
}

describe("the console with an API key", () => {
  const runsDir = tempDir("rlf-console-auth-");
  let opened: ConsoleInChromium;
  let url: string;
  let browser: Browser;

  beforeAll(async () => {
    writeRun(runsDir, "keyed");
    opened = await openConsoleInChromium({ gatewayAdmin: "http://127.0.0.1:9", runsDir, apiKeys: [KEY] });
    ({ url, browser } = opened);
  }, 60_000);

  afterAll(async () => {
    await opened?.close();
  });

  it("answers /api only with the key; the app's files and /healthz hold no data and need none", async () => {
    const without = await fetch(`${url}/api/runs`);
    expect(without.status).toBe(401);
    expect(((await without.json()) as { error: { code: string } }).error.code).toBe("UNAUTHENTICATED");
    const wrong = await fetch(`${url}/api/runs`, { headers: { authorization: "Bearer not-the-key-at-all" } });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${url}/api/runs`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(right.status).toBe(200);
    expect(((await right.json()) as { runs: { id: string }[] }).runs.map((r) => r.id)).toEqual(["keyed"]);
    expect((await fetch(`${url}/runs`)).status).toBe(200);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });

  it("in the browser, asks for the key once and then shows the runs", async () => {
    const page = await browser.newPage();
    const asked: string[] = [];
    page.on("dialog", (d) => {
      asked.push(d.message());
      void d.accept(KEY);
    });
    await page.goto(`${url}/runs`);
    await page.locator('ul.run-dirs a[href="/runs/keyed"]').waitFor();
    await page.locator('ul.run-dirs a[href="/runs/keyed"]').click();
    await page.locator("table.trajectories tbody tr").first().waitFor();
    // The Runs view's two requests and the Run view's shared one prompt: the key is kept for the session.
    expect(asked).toEqual(["This console needs an API key"]);
    await page.close();
  });

  it("rlf console refuses to bind beyond loopback without --api-keys-env, and serves with it", async () => {
    const refused = spawnSync(process.execPath, [RLF, "console", "--host", "0.0.0.0", "--port", "0"], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain("--host 0.0.0.0 is beyond loopback: give --api-keys-env NAME");

    const { url: bound, stop } = await startConsoleProcess(
      ["--host", "0.0.0.0", "--port", "0", "--runs", runsDir, "--api-keys-env", "RLF_TEST_CONSOLE_KEYS"],
      { RLF_TEST_CONSOLE_KEYS: `other-key-456, ${KEY}` },
    );
    try {
      const { port } = new URL(bound);
      expect((await fetch(`http://127.0.0.1:${port}/api/runs`)).status).toBe(401);
      const res = await fetch(`http://127.0.0.1:${port}/api/runs`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      expect(res.status).toBe(200);
    } finally {
      await stop();
    }
  }, 90_000);
});

// The later console views in a real browser (Debian's Chromium, headless, playwright-core) against a
// child gateway (the search tool and the kv environment) and a run written by a real `rlf rollout`
// with per-turn process rewards: a playground call shows the tool's result, as the gateway answers it
// directly; an episode's tool is called inside an episode the page starts and ends; the Trajectory
// view shows the GRPO group's siblings with their advantages and each turn's reward; the Traces view
// draws one bar per tool call.
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Trajectory } from "@rlfactory/contracts";
import { readTrajectoriesJsonl } from "@rlfactory/rollout";
import { ROOT, tempDir } from "@rlfactory/test-support/gateway-harness";
import { type RolloutRun, writeRolloutRun } from "@rlfactory/test-support/rollout-run";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleInChromium, openConsoleInChromium } from "./console-in-chromium.ts";

const KV = { command: process.execPath, args: [join(ROOT, "test/support/src/kv-environment.ts"), "--stdio"] };

/** As the views print a number. */
const fmt = (v: number | null | undefined) =>
  v === null || v === undefined ? "—" : Number.isInteger(v) ? String(v) : v.toFixed(4);

describe("the console's playground, trajectory detail and traces in headless Chromium", () => {
  const runsDir = tempDir("rlf-console-views-browser-");
  let run: RolloutRun;
  let opened: ConsoleInChromium;
  let url: string;
  let browser: Browser;
  let written: Trajectory[];

  beforeAll(async () => {
    run = await writeRolloutRun(runsDir, "grpo", {
      tasks: 1,
      groupSize: 3,
      processRewards: { tool_success: 0.25 },
      servers: { kv: KV },
    });
    written = await readTrajectoriesJsonl(join(run.runDir, "trajectories.jsonl"));
    opened = await openConsoleInChromium({ gatewayAdmin: run.gateway.adminUrl, runsDir });
    ({ url, browser } = opened);
  }, 150_000);

  afterAll(async () => {
    await opened?.close();
    await run?.stop();
  });

  it("a playground call from the form generated from the input schema shows the tool's result", async () => {
    const direct = await fetch(`${run.gateway.adminUrl}/v1/tools/search__search:call`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ arguments: { query: "Scott Derrickson" } }),
    });
    const expected = ((await direct.json()) as { content: { text: string }[] }).content
      .map((c) => c.text)
      .join("\n");
    expect(expected).toContain("Scott Derrickson");

    const page = await browser.newPage();
    await page.goto(`${url}/tools/search__search`);
    await page.locator('[data-field="query"] input').fill("Scott Derrickson");
    await page.getByTestId("call").click();
    const output = page.getByTestId("call-output");
    await output.waitFor();
    expect(await output.textContent()).toBe(expected);
    expect(await page.getByTestId("call-latency").textContent()).toMatch(/^\d+\.\d ms$/);
    await page.close();
  });

  it("an episode's tool is called inside an episode the page starts, and ending it shows the final state", async () => {
    const page = await browser.newPage();
    await page.goto(`${url}/tools/kv__put`);
    await page.getByRole("button", { name: "Start an episode on kv" }).click();
    await page.getByTestId("episode-id").waitFor();
    await page.locator('[data-field="key"] input').fill("color");
    await page.locator('[data-field="value"] input').fill("blue");
    await page.getByTestId("call").click();
    await page.getByTestId("call-output").waitFor();
    expect(await page.getByTestId("call-result").textContent()).toContain("HTTP 200");
    await page.getByRole("button", { name: "End episode" }).click();
    await expect
      .poll(() => page.getByTestId("episode-note").textContent())
      .toContain('final state {"color":"blue"}');
    await page.close();
  });

  it("the Trajectory view shows the group's siblings with their advantages and each turn's reward", async () => {
    const t = written[0] as Trajectory;
    const group = written.filter((s) => s.group_id === t.group_id);
    expect(group).toHaveLength(3);
    expect(t.turn_rewards?.some((r) => r !== 0)).toBe(true);

    const page = await browser.newPage();
    await page.goto(`${url}/runs/grpo/trajectories/0`);
    await page.getByTestId("siblings").waitFor();
    const advantages = await page.locator(".sibling .advantage").allTextContents();
    expect(advantages).toEqual(group.map((s) => fmt(s.advantage)));
    expect(await page.locator(".sibling.current").count()).toBe(1);
    const turnRewards = await page.locator('[data-testid="turn-reward"] b').allTextContents();
    expect(turnRewards).toEqual((t.turn_rewards ?? []).map(fmt));
    await page.close();
  });

  it("the Trajectory view shows the environment's snapshots and the diff between consecutive ones", async () => {
    // the run's first record as if its task had run in a kv episode (the rollout stores these)
    const dir = join(runsDir, "env");
    mkdirSync(dir);
    cpSync(join(run.runDir, "summary.json"), join(dir, "summary.json"));
    const snapshots = [
      { user_turn: 0, state: { a: "1" } },
      { user_turn: 1, state: { a: "1", b: "2" } },
      { user_turn: 2, final: true, state: { b: "3" } },
    ];
    const t = {
      ...written[0],
      metadata: { ...written[0]?.metadata, environment: { server: "kv", snapshots } },
    };
    writeFileSync(join(dir, "trajectories.jsonl"), `${JSON.stringify(t)}\n`);

    const page = await browser.newPage();
    await page.goto(`${url}/runs/env/trajectories/0`);
    await page.getByTestId("snapshots").waitFor();
    expect(await page.locator(".snapshot").count()).toBe(3);
    expect(await page.locator('[data-snapshot="1"] .op').allTextContents()).toEqual(['add /b = "2"']);
    // the patch's order is fast-json-patch's: compare as a set
    expect((await page.locator('[data-snapshot="2"] .op').allTextContents()).sort()).toEqual([
      "remove /a",
      'replace /b = "3"',
    ]);
    await page.close();
  });

  it("the Traces view draws one bar per tool call, in the record's order", async () => {
    const i = written.findIndex((t) => t.tool_calls.length > 0);
    expect(i).toBeGreaterThanOrEqual(0);
    const page = await browser.newPage();
    await page.goto(`${url}/runs/grpo/trajectories/${i}/trace`);
    await page.getByTestId("gantt").waitFor();
    await page.locator(".gantt .bar").first().waitFor();
    const names = await page
      .locator(".gantt .bar")
      .evaluateAll((bars) => bars.map((b) => b.getAttribute("data-name")));
    expect(names).toEqual(written[i]?.tool_calls.map((c) => c.name));
    await page.close();
  });
});

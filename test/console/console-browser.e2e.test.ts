// The console in a real browser: Debian's Chromium (installed by .ci/run), driven headless by
// playwright-core, against a console server over a child gateway and a run directory written by a
// real `rlf rollout`. The Tools view shows the search tool's health and breaker; the Trajectory view
// colours exactly the tokens the loss mask trains, and hovering one shows its id and logprob.
import { join } from "node:path";
import { readTrajectoriesJsonl } from "@rlfactory/rollout";
import { tempDir } from "@rlfactory/test-support/gateway-harness";
import { type RolloutRun, writeRolloutRun } from "@rlfactory/test-support/rollout-run";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleInChromium, openConsoleInChromium } from "./console-in-chromium.ts";

describe("the console in headless Chromium", () => {
  const runsDir = tempDir("rlf-console-browser-");
  let run: RolloutRun;
  let opened: ConsoleInChromium;
  let url: string;
  let browser: Browser;

  beforeAll(async () => {
    run = await writeRolloutRun(runsDir, "hotpotqa-b", { tasks: 1, groupSize: 2 });
    opened = await openConsoleInChromium({ gatewayAdmin: run.gateway.adminUrl, runsDir });
    ({ url, browser } = opened);
  }, 120_000);

  afterAll(async () => {
    await opened?.close();
    await run?.stop();
  });

  it("the Tools view lists the gateway's search tool with its health and breaker", async () => {
    const page = await browser.newPage();
    await page.goto(`${url}/tools`);
    const row = page.locator('tr[data-tool="search__search"]');
    await row.waitFor();
    expect(await row.locator("td.health").textContent()).toBe("ready");
    expect(await row.locator("td.breaker").textContent()).toBe("closed");
    expect(await page.getByTestId("gateway-status").textContent()).toBe("gateway ready");
    await page.close();
  });

  it("the Trajectory view colours the tokens by loss mask and shows a token's id, text and logprob on hover", async () => {
    const [t] = await readTrajectoriesJsonl(join(run.runDir, "trajectories.jsonl"));
    if (!t) throw new Error("the rollout wrote no trajectory");
    const inTurns = t.turns.flatMap((turn) => t.loss_mask.slice(turn.start, turn.end));
    const trained = inTurns.filter((m) => m === 1).length;
    expect(trained).toBeGreaterThan(0);

    const page = await browser.newPage();
    await page.goto(`${url}/runs/hotpotqa-b/trajectories/0`);
    await page.locator(".tokens").first().waitFor();
    expect(await page.locator(".tokens .tok.prompt").count()).toBe(t.prompt_ids.length);
    expect(await page.locator(".tokens .tok.mask-1").count()).toBe(trained);
    expect(await page.locator(".tokens .tok.mask-0").count()).toBe(inTurns.length - trained);

    const i = t.loss_mask.indexOf(1);
    const res = await fetch(`${url}/api/runs/hotpotqa-b/trajectories/0`);
    const texts = ((await res.json()) as { token_texts: { response: string[] } }).token_texts;
    await page.locator(`.tok[data-index="${i}"]`).hover();
    const info = page.getByTestId("token-info");
    await expect
      .poll(() => info.textContent())
      .toContain(`response ${i} · id ${t.response_ids[i]} · text ${JSON.stringify(texts.response[i])}`);
    expect(await info.textContent()).toContain(`logprob ${(t.rollout_logprobs[i] ?? 0).toFixed(4)} · mask 1`);
    await page.close();
  });
});

import { tempDir } from "@rlfactory/test-support/gateway-harness";
import {
  type LiveRolloutService,
  startLiveRolloutService,
} from "@rlfactory/test-support/live-rollout-service";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleInChromium, openConsoleInChromium } from "./console-in-chromium.ts";

const TASKS = 10;

describe("a live run in headless Chromium", () => {
  let service: LiveRolloutService;
  let opened: ConsoleInChromium;
  let url: string;
  let browser: Browser;

  beforeAll(async () => {
    service = await startLiveRolloutService({ turnMs: [80, 160] });
    opened = await openConsoleInChromium({
      gatewayAdmin: service.gateway.adminUrl,
      runsDir: tempDir(),
      rollout: service.httpUrl,
    });
    ({ url, browser } = opened);
  }, 120_000);

  afterAll(async () => {
    await opened?.close();
    await service?.stop();
  });

  it("the reward curve grows while the run runs, then holds one point per group", async () => {
    const page = await browser.newPage();
    await page.goto(`${url}/runs`);
    await page.getByText(`From the rollout service at ${service.httpUrl}`).waitFor();
    const finished = service.rollout(TASKS);

    // The Runs view lists the request as running, with its progress out of ten groups.
    const row = page.locator("table.live-runs tr[data-live-run]").first();
    await row.locator("td.state.running").waitFor({ timeout: 60_000 });
    expect(await row.locator(".progress").getAttribute("data-of")).toBe(String(TASKS));
    await row.locator("a").click();

    const curve = page.locator('figure[data-chart="reward"]');
    const state = page.locator("h2 .state");
    const points = async () => Number((await curve.getAttribute("data-points")) ?? "0");
    // A first reading while the request is running...
    await curve.waitFor({ timeout: 60_000 });
    const first = await points();
    expect(await state.textContent()).toBe("running");
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(TASKS);
    // ... then more points, read while it is still running.
    await expect
      .poll(async () => ((await state.textContent()) === "running" ? await points() : -1), {
        timeout: 60_000,
      })
      .toBeGreaterThan(first);

    expect(await finished).toBe(TASKS);
    await expect.poll(() => state.textContent(), { timeout: 30_000 }).toBe("done");
    await expect.poll(points, { timeout: 30_000 }).toBe(TASKS);
    expect(await page.locator(".progress").first().getAttribute("data-done")).toBe(String(TASKS));
    await page.close();
  }, 120_000);
});

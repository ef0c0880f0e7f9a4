// report.html is the console's Run view exported with the run's data inlined (writeRunReport): opened
// from disk in headless Chromium it fetches nothing, runs none of the run's strings as code, and shows
// what the console shows for the run — one curve point per group, the status breakdown, the tools'
// calls and latency percentiles, the trajectories — and opens an example trajectory token by token.
// The run is the hand-counted fixture of test/support/src/report-fixtures.ts.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { exampleIndices, renderRunReport } from "@rlfactory/console";
import { summarizeRollout } from "@rlfactory/rollout";
import { tempDir } from "@rlfactory/test-support/gateway-harness";
import { fixtureTrajectories, HOSTILE_TASK_ID } from "@rlfactory/test-support/report-fixtures";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./console-in-chromium.ts";

describe("report.html, the console's Run view exported", () => {
  const trajectories = fixtureTrajectories();
  const summary = JSON.parse(
    JSON.stringify(summarizeRollout(trajectories, { wallMs: 2000, config: { note: "<b>cfg</b>" } })),
  );
  const file = join(tempDir("rlf-run-report-"), "report.html");
  let browser: Browser;

  beforeAll(async () => {
    writeFileSync(file, await renderRunReport({ runId: "fixture", title: "Run <7>", trajectories, summary }));
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it("opens from disk with nothing fetched, and runs none of the run's strings as code", async () => {
    const page = await browser.newPage();
    const requests: string[] = [];
    const dialogs: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(pathToFileURL(file).href);
    await page.locator('figure[data-chart="reward"][data-points="4"]').waitFor();
    expect(requests).toEqual([pathToFileURL(file).href]);
    expect(dialogs).toEqual([]);
    expect(await page.title()).toBe("Run <7>");
    // The hostile task id is shown as text in the trajectory table.
    expect(await page.locator("table.trajectories td.mono").allTextContents()).toContain(HOSTILE_TASK_ID);
    await page.close();
  });

  it("shows the run's curves, statuses, headline numbers and tools as the console does", async () => {
    const page = await browser.newPage();
    await page.goto(pathToFileURL(file).href);
    // Groups A, B, C, D: one point each in both curves.
    await page.locator('figure[data-chart="reward"][data-points="4"]').waitFor();
    expect(await page.locator('figure[data-chart="success"]').getAttribute("data-points")).toBe("4");
    // 4.5 over 9 scored; exact match on a0, a1, a2 of the 9 scored.
    expect(await page.locator('[data-card="reward-mean"] b').textContent()).toBe("0.5");
    expect(await page.locator('[data-card="success-rate"] b').textContent()).toBe("0.333");
    const statuses = await page.locator(".run-curves .statuses .badge").allTextContents();
    expect(statuses).toEqual(["completed 6 (60%)", "truncated 2 (20%)", "aborted 1 (10%)", "failed 1 (10%)"]);
    // search: 10, 20, 300 TIMEOUT, 5, 7, 0.4 TIMEOUT; fetch: 1500 UNAVAILABLE, 40.
    const search = page.locator('table.tool-calls tr[data-tool="search"] td');
    expect(await search.allTextContents()).toEqual(["search", "6", "2", "7 ms", "300 ms", "300 ms"]);
    const fetchRow = page.locator('table.tool-calls tr[data-tool="fetch"] td');
    expect(await fetchRow.allTextContents()).toEqual(["fetch", "2", "1", "40 ms", "1.5 s", "1.5 s"]);
    expect(await page.locator("table.error-codes").textContent()).toContain("UNAVAILABLE1");
    expect(await page.locator("table.trajectories tbody tr").count()).toBe(trajectories.length);
    expect(await page.locator("details pre").textContent()).toContain('"note": "<b>cfg</b>"');
    await page.close();
  });

  it("shows the mean turn reward per sampled turn when the trajectories carry turn rewards", async () => {
    const [a, b] = fixtureTrajectories();
    if (!a || !b) throw new Error("fixture");
    // a: turns S O S; b: S O S O S. By sampled turn: 1 → (1 + 0) / 2, 2 → (0.5 − 0.25) / 2, 3 → 1 / 1.
    const withTurns = [
      { ...a, turn_rewards: [1, 0, 0.5] },
      { ...b, turn_rewards: [0, 0, -0.25, 0, 1] },
    ];
    const page = await browser.newPage();
    await page.setContent(
      await renderRunReport({
        runId: "turns",
        title: "turns",
        trajectories: withTurns,
        summary: JSON.parse(JSON.stringify(summarizeRollout(withTurns, { wallMs: 10 }))),
      }),
    );
    await page.locator("table.turn-rewards").waitFor();
    const rows = await page
      .locator("table.turn-rewards tbody tr")
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
    expect(rows).toEqual([
      ["1", "0.5"],
      ["2", "0.125"],
      ["3", "1"],
    ]);
    await page.close();
  });

  it("opens an example trajectory token by token, inlined in the same file", async () => {
    const examples = exampleIndices(trajectories, 6);
    // The first of each status, the best and worst scored, then the first ones: six of ten.
    expect(examples).toHaveLength(6);
    const i = examples.find((k) => (trajectories[k]?.status ?? "") === "failed") ?? -1;
    const t = trajectories[i];
    if (!t) throw new Error("the fixture has no failed trajectory");
    const page = await browser.newPage();
    await page.goto(pathToFileURL(file).href);
    await page.locator(`table.trajectories a[href="/runs/fixture/trajectories/${i}"]`).click();
    await page.locator(".tokens").first().waitFor();
    expect(await page.locator(".tokens .tok.prompt").count()).toBe(t.prompt_ids.length);
    await page.close();
  });
});

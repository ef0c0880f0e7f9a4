// Captures the console's views for docs/console.md: `node test/console/capture-screenshots.ts`.
// A real `rlf rollout` (child gateway with the search server, simulated LLM) writes one run; the
// console serves it; headless Chromium (CHROMIUM_PATH, default /usr/bin/chromium) photographs
// /tools, /runs/RUN and /runs/RUN/trajectories/0 into docs/img/; then the later views: a tool's page
// after a playground call, a trajectory's siblings and per-turn rewards, its Traces timeline, and the
// Episodes view (one live kv episode, the FTRL example's bundle) with that bundle's page; then, with a
// real `rlf rollout serve` running a request, the Runs view with that run live (console-runs.png);
// last, a run in which `rlf tool image` rotates a PNG twice (one image shown, one dropped) in its
// Trajectory view (console-trajectory-image.png).
import { join } from "node:path";
import { buildConsoleApp } from "@rlfactory/console";
import { ROOT, tempDir } from "@rlfactory/test-support/gateway-harness";
import { writeImageRolloutRun } from "@rlfactory/test-support/image-rollout";
import { startLiveRolloutService } from "@rlfactory/test-support/live-rollout-service";
import { writeRolloutRun } from "@rlfactory/test-support/rollout-run";
import { launchChromium } from "./console-in-chromium.ts";

const runsDir = tempDir("rlf-console-shots-");
const run = await writeRolloutRun(runsDir, "hotpotqa", {
  tasks: 2,
  groupSize: 2,
  processRewards: { tool_success: 0.25 },
  servers: {
    kv: { command: process.execPath, args: [join(ROOT, "test/support/src/kv-environment.ts"), "--stdio"] },
  },
});
const live = await startLiveRolloutService({ turnMs: [150, 300] });
const app = buildConsoleApp({
  gatewayAdmin: run.gateway.adminUrl,
  runsDir,
  bundlesDir: join(ROOT, "examples/ftrl-hotpotqa"),
  rollout: live.httpUrl,
});
const browser = await launchChromium();
try {
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const views: [string, string, string][] = [
    ["console-tools.png", "/tools", 'tr[data-tool="search__search"]'],
    ["console-run.png", "/runs/hotpotqa", "table a"],
    ["console-trajectory.png", "/runs/hotpotqa/trajectories/0", ".tokens .tok.mask-1"],
  ];
  for (const [file, path, ready] of views) {
    await page.goto(`${url}${path}`);
    await page.locator(ready).first().waitFor();
    if (file === "console-trajectory.png") await page.locator(".tokens .tok.mask-1").first().hover();
    await page.screenshot({ path: join(ROOT, "docs/img", file) });
    process.stdout.write(`docs/img/${file}\n`);
  }
  const shoot = async (file: string) => {
    await page.screenshot({ path: join(ROOT, "docs/img", file) });
    process.stdout.write(`docs/img/${file}\n`);
  };
  // The playground: a search call from the generated form.
  await page.goto(`${url}/tools/search__search`);
  await page.locator('[data-field="query"] input').fill("Scott Derrickson");
  await page.getByTestId("call").click();
  await page.getByTestId("call-output").waitFor();
  await shoot("console-playground.png");
  // The trajectory's detail: scrolled to the siblings and the first turns with their rewards.
  await page.goto(`${url}/runs/hotpotqa/trajectories/0`);
  await page.getByTestId("siblings").scrollIntoViewIfNeeded();
  await shoot("console-trajectory-detail.png");
  await page.goto(`${url}/runs/hotpotqa/trajectories/0/trace`);
  await page.locator(".gantt .bar").first().waitFor();
  await shoot("console-traces.png");
  // One live episode, as the Episodes view lists it.
  const started = await fetch(`${url}/api/episodes`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ server: "kv", config: {} }),
  });
  if (!started.ok) throw new Error(`episode: HTTP ${started.status}`);
  await page.goto(`${url}/episodes`);
  await page.locator('tr[data-bundle="bundle"]').waitFor();
  await shoot("console-episodes.png");
  await page.goto(`${url}/bundles/bundle`);
  await page.locator("tr[data-bundle-tool]").first().waitFor();
  await shoot("console-bundle.png");
  // A request in flight on the rollout service: the Runs view shows it live above the run directories.
  const finished = live.rollout(12);
  await page.goto(`${url}/runs`);
  await page.locator("table.live-runs td.state.running").waitFor({ timeout: 60_000 });
  await page.waitForFunction("Number(document.querySelector('.progress')?.dataset.done ?? 0) >= 3");
  await page.screenshot({ path: join(ROOT, "docs/img/console-runs.png") });
  process.stdout.write("docs/img/console-runs.png\n");
  await finished;
  // Tool-result images: the shown one at its placeholder tokens (hovered), the dropped one as a note.
  const vision = await writeImageRolloutRun(runsDir, "vision");
  try {
    await page.goto(`${url}/runs/vision/trajectories/0`);
    const figure = page.locator(".image-span img").first();
    await figure.waitFor();
    await page.locator(".image-note img").first().waitFor();
    await figure.evaluate((el) => el.closest(".turn")?.scrollIntoView());
    await figure.hover();
    await shoot("console-trajectory-image.png");
  } finally {
    await vision.stop();
  }
} finally {
  await browser.close();
  await app.close();
  await run.stop();
  await live.stop();
}

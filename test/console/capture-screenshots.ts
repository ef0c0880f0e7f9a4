// Captures the console's views for docs/console.md: `node test/console/capture-screenshots.ts`.
// A real `rlf rollout` (child gateway with the search server, simulated LLM) writes one run; the
// console serves it; headless Chromium (CHROMIUM_PATH, default /usr/bin/chromium) photographs
// /tools, /runs/RUN and /runs/RUN/trajectories/0 into docs/img/.
import { join } from "node:path";
import { buildConsoleApp } from "@rlfactory/console";
import { ROOT, tempDir } from "@rlfactory/test-support/gateway-harness";
import { writeRolloutRun } from "@rlfactory/test-support/rollout-run";
import { chromium } from "playwright-core";

const runsDir = tempDir("rlf-console-shots-");
const run = await writeRolloutRun(runsDir, "hotpotqa", { tasks: 2, groupSize: 2 });
const app = buildConsoleApp({ gatewayAdmin: run.gateway.adminUrl, runsDir });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox"],
});
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
} finally {
  await browser.close();
  await app.close();
  await run.stop();
}

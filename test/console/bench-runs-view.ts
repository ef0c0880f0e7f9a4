// How long the Run view takes to plot 10,000 points per curve in headless Chromium (issue 26's
// acceptance: the runs view plots 10,000 points): `node test/console/bench-runs-view.ts`. A synthetic
// run directory of 10,000 groups of one trajectory each (a reward rising with noise); each of three
// fresh pages is timed from navigation until uPlot holds 10,000 points in both charts and two frames
// are painted. A benchmark, not a test: it prints figures and asserts nothing.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@rlfactory/test-support/gateway-harness";
import { openConsoleInChromium } from "./console-in-chromium.ts";

const N = 10_000;
const runs = tempDir("rlf-console-bench-runs-");
const dir = join(runs, "curves");
mkdirSync(dir, { recursive: true });
const lines: string[] = [];
for (let i = 0; i < N; i++) {
  const em =
    Math.sin(i * 12.9898) * 43758.5453 - Math.floor(Math.sin(i * 12.9898) * 43758.5453) < i / N ? 1 : 0;
  lines.push(
    JSON.stringify({
      schema_version: 1,
      task_id: `t${i}`,
      group_id: `t${i}#0`,
      sample_index: 0,
      policy_version: null,
      prompt_ids: [1, 2, 3],
      response_ids: [4, 5],
      loss_mask: [1, 1],
      rollout_logprobs: [-0.1, -0.2],
      turns: [{ kind: "sampled", start: 0, end: 2 }],
      tool_calls: [],
      reward: em + 0.1,
      reward_components: { exact_match: em, format: 0.1 },
      status: "completed",
      status_reason: null,
      timings: {},
    }),
  );
}
writeFileSync(join(dir, "trajectories.jsonl"), `${lines.join("\n")}\n`);
writeFileSync(join(dir, "summary.json"), JSON.stringify({ config: null }));
const { url, browser, close } = await openConsoleInChromium({
  gatewayAdmin: "http://127.0.0.1:9",
  runsDir: runs,
});
for (let r = 0; r < 3; r++) {
  const page = await browser.newPage();
  const t0 = performance.now();
  await page.goto(`${url}/runs/curves`);
  await page.locator(`figure[data-chart="reward"][data-points="${N}"]`).waitFor({ state: "attached" });
  await page.locator(`figure[data-chart="success"][data-points="${N}"]`).waitFor({ state: "attached" });
  const t1 = performance.now();
  await page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))");
  const t2 = performance.now();
  console.log(
    `run ${r}: ${N} points × 2 charts plotted ${(t1 - t0).toFixed(0)} ms, painted ${(t2 - t0).toFixed(0)} ms`,
  );
  await page.close();
}
await close();

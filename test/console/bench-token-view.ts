// How long the Trajectory view takes to show a 32,768-token trajectory in headless Chromium (issue
// 26's acceptance: under 2 s): `node test/console/bench-token-view.ts`. A synthetic record (32 turns
// of 1,024 tokens, sampled and observation alternating) in a temporary run directory; each of three
// fresh pages is timed from navigation until the first screen of tokens is in the DOM and two frames
// are painted, then from there until the view is scrolled to the last turn and its last token is in
// the DOM (a long trajectory renders a turn's tokens when it nears the viewport: lazy-tokens.tsx).
// A benchmark, not a test: it prints figures and asserts nothing.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@rlfactory/test-support/gateway-harness";
import { openConsoleInChromium } from "./console-in-chromium.ts";

const runs = tempDir("rlf-console-bench-");
const dir = join(runs, "big");
mkdirSync(dir, { recursive: true });
const N = 32768;
const turns = [];
const mask: number[] = [];
for (let s = 0, k = 0; s < N; s += 1024, k++) {
  turns.push({ kind: k % 2 === 0 ? "sampled" : "observation", start: s, end: s + 1024 });
  for (let j = 0; j < 1024; j++) mask.push(k % 2 === 0 ? 1 : 0);
}
const t = {
  schema_version: 1,
  task_id: "big",
  group_id: "big#0",
  sample_index: 0,
  policy_version: null,
  prompt_ids: [151644, 8948, 198],
  response_ids: Array.from({ length: N }, (_, i) => 1000 + (i % 5000)),
  loss_mask: mask,
  rollout_logprobs: mask.map((m, i) => (m ? -((i % 50) / 10) : 0)),
  turns,
  tool_calls: [],
  reward: 1,
  reward_components: {},
  status: "completed",
  status_reason: null,
  timings: {},
};
writeFileSync(join(dir, "trajectories.jsonl"), `${JSON.stringify(t)}\n`);
writeFileSync(join(dir, "summary.json"), JSON.stringify({ config: { tokenizer: { path: "qwen3" } } }));
const { url, browser, close } = await openConsoleInChromium({
  gatewayAdmin: "http://127.0.0.1:9",
  runsDir: runs,
});
for (let r = 0; r < 3; r++) {
  const page = await browser.newPage();
  const frames = "new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))";
  const t0 = performance.now();
  await page.goto(`${url}/runs/big/trajectories/0`);
  await page.locator('.tok[data-index="0"]').waitFor({ state: "attached" });
  await page.evaluate(frames);
  const t1 = performance.now();
  const inDom = await page.locator(".tok").count();
  // As a reader pressing End: turns rendered on the way grow past their placeholders, so again
  // until the last token is there.
  const last = page.locator(`.tok[data-index="${N - 1}"]`);
  let scrolls = 0;
  while ((await last.count()) === 0) {
    await page.evaluate(`window.scrollTo(0, document.body.scrollHeight); ${frames}`);
    scrolls++;
  }
  await page.evaluate(frames);
  const t2 = performance.now();
  console.log(
    `run ${r}: ${N} tokens: first screen painted ${(t1 - t0).toFixed(0)} ms (${inDom} tokens in the DOM), last turn painted ${(t2 - t1).toFixed(0)} ms later (${scrolls} scrolls to the end)`,
  );
  await page.close();
}
await close();

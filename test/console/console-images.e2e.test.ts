// Tool-result images in the console, from a run written by a real `rlf rollout`: the simulated policy
// has `rlf tool image` rotate a PNG twice with `vision.max_images: 1`, so the first result is shown to
// the model (placeholder tokens) and the second dropped. The API serves the stored bytes by hash
// (and refuses anything that is not a hash); the Trajectory view, in headless Chromium, draws the
// shown image just before its placeholder tokens and the dropped one as a note under its turn; the
// run's report.html carries the images as data URLs and fetches nothing.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { renderRunReport } from "@rlfactory/console";
import type { Trajectory, TrajectoryImage } from "@rlfactory/contracts";
import { readTrajectoriesJsonl } from "@rlfactory/rollout";
import { tempDir } from "@rlfactory/test-support/gateway-harness";
import { type ImageRolloutRun, writeImageRolloutRun } from "@rlfactory/test-support/image-rollout";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleInChromium, openConsoleInChromium } from "./console-in-chromium.ts";

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

describe("tool-result images in the console", () => {
  const runsDir = tempDir("rlf-console-images-");
  let run: ImageRolloutRun;
  let opened: ConsoleInChromium;
  let url: string;
  let browser: Browser;
  let t: Trajectory;
  let shown: TrajectoryImage;
  let dropped: TrajectoryImage;

  beforeAll(async () => {
    run = await writeImageRolloutRun(runsDir, "vision");
    [t] = (await readTrajectoriesJsonl(join(run.runDir, "trajectories.jsonl"))) as [Trajectory];
    const images = t.images ?? [];
    expect(
      images.map((i) => i.shown),
      JSON.stringify(t.status_reason),
    ).toEqual(["full", "dropped"]);
    [shown, dropped] = images as [TrajectoryImage, TrajectoryImage];
    opened = await openConsoleInChromium({ gatewayAdmin: run.gateway.adminUrl, runsDir });
    ({ url, browser } = opened);
  }, 150_000);

  afterAll(async () => {
    await opened?.close();
    await run?.stop();
  });

  it("serves each stored image by its hash: the same bytes, as an image type", async () => {
    for (const image of [shown, dropped]) {
      const res = await fetch(`${url}/api/runs/vision/images/${image.sha256}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
      const body = new Uint8Array(await res.arrayBuffer());
      expect(sha256(body)).toBe(image.sha256);
      expect(Buffer.from(body).equals(readFileSync(join(run.runDir, image.path)))).toBe(true);
    }
  });

  it("answers 404 for a hash the run does not have, or a run that does not exist", async () => {
    const unknown = await opened.app.inject({
      method: "GET",
      url: `/api/runs/vision/images/${"0".repeat(64)}`,
    });
    expect([unknown.statusCode, unknown.json().error.code]).toEqual([404, "NOT_FOUND"]);
    const noRun = await opened.app.inject({ method: "GET", url: `/api/runs/nope/images/${shown.sha256}` });
    expect(noRun.statusCode).toBe(404);
  });

  it("answers 400 for anything that is not a hash, paths included", async () => {
    const names = [
      "abc",
      shown.sha256.toUpperCase(),
      `${shown.sha256}.png`,
      "..%2Fsummary.json",
      `..%2F..%2Fimages%2F${shown.sha256}`,
    ];
    for (const name of names) {
      const res = await opened.app.inject({ method: "GET", url: `/api/runs/vision/images/${name}` });
      expect([name, res.statusCode, res.json().error.code]).toEqual([name, 400, "INVALID_ARGUMENTS"]);
    }
  });

  it("the Trajectory view draws the shown image just before its placeholder tokens, the dropped one as a note", async () => {
    const page = await browser.newPage();
    await page.goto(`${url}/runs/vision/trajectories/0`);
    const figure = page.locator(`.image-span[data-image="${shown.sha256}"]`);
    await figure.locator("img").waitFor();
    await loaded(page, `.image-span[data-image="${shown.sha256}"] img`, [shown.width, shown.height]);
    // Right before the first placeholder token, inside the observation turn that shows it.
    const next = await figure.evaluate((el) => el.nextElementSibling?.getAttribute("data-index"));
    expect(Number(next)).toBe(shown.start);
    expect(await figure.evaluate((el) => el.closest("[data-turn]")?.getAttribute("data-turn"))).toBe(
      String(shown.turn),
    );
    expect(await page.locator(".tok.image-pad").count()).toBe((shown.end ?? 0) - (shown.start ?? 0));
    await figure.hover();
    const info = await page.getByTestId("token-info").textContent();
    expect(info).toContain(`shown full · ${shown.width}×${shown.height} image/png`);
    expect(info).toContain(`(${(shown.end ?? 0) - (shown.start ?? 0)} placeholders)`);

    const note = page.locator(`.image-note[data-image="${dropped.sha256}"]`);
    expect(await note.textContent()).toContain("dropped");
    expect(await note.evaluate((el) => el.closest("[data-turn]")?.getAttribute("data-turn"))).toBe(
      String(dropped.turn),
    );
    expect(await page.locator(`.image-span[data-image="${dropped.sha256}"]`).count()).toBe(0);
    await loaded(page, `.image-note[data-image="${dropped.sha256}"] img`, [dropped.width, dropped.height]);
    await page.close();
  });

  it("report.html carries the images as data URLs and fetches nothing", async () => {
    const file = join(run.runDir, "report.html");
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(file).href);
    await page.locator('table.trajectories a[href="/runs/vision/trajectories/0"]').click();
    const img = page.locator(`.image-span[data-image="${shown.sha256}"] img`);
    await img.waitFor();
    const src = (await img.getAttribute("src")) ?? "";
    expect(src.startsWith("data:image/png;base64,")).toBe(true);
    expect(sha256(Buffer.from(src.slice(src.indexOf(",") + 1), "base64"))).toBe(shown.sha256);
    expect(requests.filter((r) => !r.startsWith("data:"))).toEqual([pathToFileURL(file).href]);
    await page.close();
  });

  it("a report's image budget leaves images out, and the view says so", async () => {
    const summary = JSON.parse(readFileSync(join(run.runDir, "summary.json"), "utf8"));
    const input = { runId: "vision", title: "budget", trajectories: [t], summary, runDir: run.runDir };
    const full = await renderRunReport(input);
    const none = await renderRunReport({ ...input, maxImageBytes: 0 });
    expect(full).toContain(`/api/runs/vision/images/${shown.sha256}`);
    expect(none).not.toContain(`/api/runs/vision/images/${shown.sha256}`);
    const file = join(tempDir("rlf-console-images-report-"), "report.html");
    writeFileSync(file, none);
    const page = await browser.newPage();
    await page.goto(pathToFileURL(file).href);
    await page.locator('table.trajectories a[href="/runs/vision/trajectories/0"]').click();
    const figure = page.locator(`.image-span[data-image="${shown.sha256}"]`);
    await figure.waitFor();
    expect(await figure.textContent()).toBe("image not in this report (size limit)");
    await page.close();
  });
});

/** Waits until the <img> has decoded, then checks its natural size. */
async function loaded(page: Page, selector: string, size: [number, number]): Promise<void> {
  const img = page.locator(selector);
  type Img = { complete: boolean; naturalWidth: number; naturalHeight: number };
  await expect
    .poll(() =>
      img.evaluate((el) => (el as unknown as Img).complete && (el as unknown as Img).naturalWidth > 0),
    )
    .toBe(true);
  expect(
    await img.evaluate((el) => [(el as unknown as Img).naturalWidth, (el as unknown as Img).naturalHeight]),
  ).toEqual(size);
}

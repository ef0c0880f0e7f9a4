// report.html: a static export of the console's Run view for one run. The built web app (web/dist:
// its one script and one stylesheet) goes inline into one HTML file with the API answers the view
// needs (the run, and a few example trajectories with their token texts), so the page opens from disk
// with nothing fetched: the same components as `rlf console`, the same curves and tables. The example
// trajectories' images go in as data URLs, up to a byte budget, so the page stays one file.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Trajectory } from "@rlfactory/contracts";
import { ASSETS_DIR } from "./console-server.ts";
import { inlineRunImages } from "./run-images.ts";
import { runResponse, trajectoryResponse } from "./run-responses.ts";

export interface RunReportInput {
  /** The run's id: its directory name. */
  runId: string;
  /** The page's title. */
  title: string;
  trajectories: readonly Trajectory[];
  /** The run's summary.json. */
  summary: unknown;
  /** Example trajectories inlined, each viewable token by token (default 6, at most 50). */
  maxExamples?: number;
  /** The run directory: the example trajectories' images are read from its `images/`. */
  runDir?: string;
  /** The most image bytes inlined (each image once, in record order; default 4 MiB). */
  maxImageBytes?: number;
  assetsDir?: string;
}

const DEFAULT_EXAMPLES = 6;
const MAX_EXAMPLES = 50;
const DEFAULT_IMAGE_BYTES = 4 * 1024 * 1024;

export async function renderRunReport(input: RunReportInput): Promise<string> {
  const assets = input.assetsDir ?? ASSETS_DIR;
  const index = await readFile(join(assets, "index.html"), "utf8");
  const script = /<script type="module" crossorigin src="\/([^"]+\.js)"><\/script>/.exec(index);
  const style = /<link rel="stylesheet" crossorigin href="\/([^"]+\.css)">/.exec(index);
  if (!script || !style) throw new Error(`${assets}/index.html does not name one script and one stylesheet`);
  const [js, css] = await Promise.all([
    readFile(join(assets, script[1] as string), "utf8"),
    readFile(join(assets, style[1] as string), "utf8"),
  ]);
  const run = `/api/runs/${encodeURIComponent(input.runId)}`;
  const responses: Record<string, unknown> = {
    [run]: runResponse(input.runId, input.summary, input.trajectories),
  };
  const examples = exampleIndices(input.trajectories, input.maxExamples ?? DEFAULT_EXAMPLES);
  for (const i of examples) {
    const t = input.trajectories[i] as Trajectory;
    responses[`${run}/trajectories/${i}`] = await trajectoryResponse(
      input.runId,
      i,
      t,
      input.summary,
      input.trajectories,
      undefined,
    );
  }
  if (input.runDir !== undefined) {
    const shown = examples.map((i) => input.trajectories[i] as Trajectory);
    const budget = input.maxImageBytes ?? DEFAULT_IMAGE_BYTES;
    Object.assign(responses, await inlineRunImages(input.runDir, input.runId, shown, budget));
  }
  const data = { path: `/runs/${encodeURIComponent(input.runId)}`, responses };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.title)}</title>
<style>${css.replaceAll("</style", "<\\/style")}</style>
<script>globalThis.__RLF_STATIC__ = ${scriptJson(data)};</script>
<script type="module">${js.replaceAll("</script", "<\\/script")}</script>
</head>
<body>
<div id="app"></div>
</body>
</html>
`;
}

export async function writeRunReport(path: string, input: RunReportInput): Promise<void> {
  await writeFile(path, await renderRunReport(input));
}

/**
 * Which trajectories the report carries in full: the first of each status (failures are what one
 * opens a report for), then the best and worst scored, then the first ones, up to `max`.
 */
export function exampleIndices(trajectories: readonly Trajectory[], max: number): number[] {
  const limit = Math.max(0, Math.min(MAX_EXAMPLES, Math.floor(max)));
  const picked = new Set<number>();
  const add = (i: number) => {
    if (i >= 0 && picked.size < limit) picked.add(i);
  };
  for (const status of ["failed", "aborted", "truncated", "completed"]) {
    add(trajectories.findIndex((t) => t.status === status));
  }
  const scored = trajectories.flatMap((t, i) => (t.reward === null ? [] : [{ i, r: t.reward }]));
  scored.sort((a, b) => b.r - a.r);
  if (scored.length > 0) {
    add((scored[0] as { i: number }).i);
    add((scored[scored.length - 1] as { i: number }).i);
  }
  for (let i = 0; i < trajectories.length && picked.size < limit; i++) add(i);
  return [...picked].sort((a, b) => a - b);
}

/** JSON that is safe inside a <script>: no `</script>`, no `<!--`, no line separators. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll("<", "\\u003c")
    .replaceAll("\u2028", "\\u2028")
    .replaceAll("\u2029", "\\u2029");
}

function escapeHtml(s: string): string {
  return s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

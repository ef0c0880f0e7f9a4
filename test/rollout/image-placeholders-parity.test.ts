// Our `<|image_pad|>` counts against transformers' processor. For assorted image sizes (tiny, huge,
// halves that Python rounds to even, extreme aspect ratios up to and past the processor's 200:1) under
// Qwen2.5-VL's and Qwen3-VL's released preprocessor configs and a budgeted config of each,
// test/support/python/qwen_vl_image_tokens.py writes each image as a PNG or JPEG, runs transformers'
// image processor on it (built from the config dict: no downloaded weights, no hub) and expands it
// with the family processor's own replace_image_token. Ours reads the same file's header and
// computes the count. Counts, grids and refusals must agree case by case. Runs the engines' venv
// (`npm run setup:engines`); without it the test is skipped with a warning, except under CI.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { enginesPython } from "@rlfactory/kit";
import {
  IMAGE_PAD,
  ImageAspectRatioError,
  imageBytesPlaceholders,
  imagePlaceholderSpan,
  PreprocessorConfig,
  type PreprocessorConfigInput,
  VISION_END,
  VISION_START,
} from "@rlfactory/rollout";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const PYTHON = enginesPython();
const SCRIPT = fileURLToPath(new URL("../support/python/qwen_vl_image_tokens.py", import.meta.url));
const HAVE_PYTHON = existsSync(PYTHON);
const UNDER_CI = process.env.CI === "true";
if (!HAVE_PYTHON && !UNDER_CI)
  console.warn(`skipping: no Python environment for the engines at ${PYTHON} (npm run setup:engines)`);

type Family = "qwen2_5_vl" | "qwen3_vl";
/** The released preprocessor configs' fields that matter, as the files state them, and a budget each. */
const CONFIGS: { name: string; family: Family; config: PreprocessorConfigInput }[] = [
  {
    name: "Qwen2.5-VL",
    family: "qwen2_5_vl",
    config: { min_pixels: 3136, max_pixels: 12845056, patch_size: 14, merge_size: 2 },
  },
  {
    name: "Qwen3-VL",
    family: "qwen3_vl",
    config: { size: { shortest_edge: 65536, longest_edge: 16777216 }, patch_size: 16, merge_size: 2 },
  },
  {
    name: "Qwen2.5-VL, 4..256 tokens",
    family: "qwen2_5_vl",
    config: { min_pixels: 4 * 28 * 28, max_pixels: 256 * 28 * 28, patch_size: 14, merge_size: 2 },
  },
  {
    name: "Qwen3-VL, 64..1024 tokens",
    family: "qwen3_vl",
    config: {
      size: { shortest_edge: 64 * 32 * 32, longest_edge: 1024 * 32 * 32 },
      patch_size: 16,
      merge_size: 2,
    },
  },
];
/** [width, height]: tiny, patch-sized, halves (70/28 = 80/32 = 2.5: Python rounds to 2), common, huge, thin. */
const SIZES: [number, number][] = [
  [1, 1],
  [3, 2],
  [14, 15],
  [28, 28],
  [42, 42],
  [70, 70],
  [80, 80],
  [48, 112],
  [333, 777],
  [640, 480],
  [1001, 999],
  [1920, 1080],
  [1080, 1920],
  [4096, 4096],
  [6000, 4000],
  [3000, 16],
  [16, 3000],
  [200, 1],
  [1, 199],
  [10000, 50],
  [201, 1],
  [4, 1000],
];

interface Case {
  config: string;
  family: Family;
  width: number;
  height: number;
  path: string;
}
type Theirs = { tokens: number; grid: [number, number, number] } | { error: string };

async function runTheirs(cases: Case[], configs: Map<string, PreprocessorConfigInput>): Promise<Theirs[]> {
  const request = { cases: cases.map((c) => ({ ...c, config: configs.get(c.config) })) };
  const child = spawn(PYTHON, [SCRIPT], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  child.stdin.end(JSON.stringify(request));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  if (code !== 0) throw new Error(`${SCRIPT} exited ${code}: ${stderr}`);
  return stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Theirs);
}

describe.skipIf(!HAVE_PYTHON && !UNDER_CI)("image placeholder tokens against transformers' processor", () => {
  let dir: string;
  let cases: Case[];
  let theirs: Theirs[];
  beforeAll(async () => {
    expect(HAVE_PYTHON, `CI makes the engines' venv: ${PYTHON} is missing`).toBe(true);
    dir = await mkdtemp(join(tmpdir(), "vl-tokens-"));
    cases = CONFIGS.flatMap(({ name, family }, c) =>
      SIZES.map(([width, height], s) => ({
        config: name,
        family,
        width,
        height,
        // PNG and JPEG in turn, so both headers are read
        path: join(dir, `${c}-${s}-${width}x${height}.${(c + s) % 2 === 0 ? "png" : "jpg"}`),
      })),
    );
    theirs = await runTheirs(cases, new Map(CONFIGS.map((c) => [c.name, c.config])));
  }, 300_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("agree on every image's count and grid, and on the images the processor refuses", async () => {
    expect(theirs).toHaveLength(cases.length);
    const configs = new Map(CONFIGS.map((c) => [c.name, PreprocessorConfig.parse(c.config)]));
    const compared = await Promise.all(
      cases.map(async (c, i) => {
        const config = configs.get(c.config);
        if (!config) throw new Error(c.config);
        let ours: Theirs;
        try {
          const p = imageBytesPlaceholders(await readFile(c.path), config);
          ours = { tokens: p.tokens, grid: [1, p.gridHeight, p.gridWidth] };
        } catch (error) {
          if (!(error instanceof ImageAspectRatioError)) throw error;
          ours = { error: "refused" };
        }
        const their = theirs[i] as Theirs;
        return {
          image: `${c.config} ${c.width}x${c.height}`,
          ours,
          theirs: "error" in their ? { error: "refused" } : their,
        };
      }),
    );
    for (const row of compared) expect(row.ours, row.image).toStrictEqual(row.theirs);
    // the cases are the assorted kinds the check is for, not all alike
    const counts = compared.flatMap((r) => ("tokens" in r.theirs ? [r.theirs.tokens] : []));
    expect(counts.length).toBeGreaterThanOrEqual(20);
    expect(new Set(counts).size).toBeGreaterThan(20);
    // 201x1 and 4x1000 (past 200:1) under each config
    expect(compared.filter((r) => "error" in r.theirs)).toHaveLength(2 * CONFIGS.length);
  });

  it("render one vision start, the counted pads and one vision end", () => {
    const span = imagePlaceholderSpan(391);
    expect(span.startsWith(VISION_START)).toBe(true);
    expect(span.endsWith(VISION_END)).toBe(true);
    expect(span.split(IMAGE_PAD)).toHaveLength(392);
  });
});

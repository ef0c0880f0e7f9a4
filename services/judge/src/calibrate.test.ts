// Calibration against a scripted judge (a plain function returning JudgeOutcome values — the judge
// interface), with every expected number worked out by hand in the comments; a JSONL set read from a
// real file and judged by the real rule graders; and Cohen's kappa on textbook examples.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CalibrationItem,
  calibrate,
  cohenKappa,
  formatCalibrationReport,
  readCalibrationSet,
} from "./calibrate.ts";
import { JudgeError, type JudgeOutcome, type JudgeRequest, judgeRequestSchema } from "./judge-types.ts";
import { gradeRule } from "./rule-graders/index.ts";

function scored(
  score: number,
  extra: { winner?: "first" | "second" | "tie"; scores?: number[]; flip?: boolean } = {},
): JudgeOutcome {
  const metadata = {
    mode: "pointwise" as const,
    judge_model: "scripted",
    template: "test@1",
    latency_ms: 1,
    tokens: { prompt: 0, completion: 0 },
    calls: 1,
    samples: 1,
    cached: false,
    ...(extra.flip === undefined ? {} : { pairwise_flip: extra.flip }),
  };
  return {
    ok: true,
    result: {
      score,
      metadata,
      ...(extra.winner ? { winner: extra.winner } : {}),
      ...(extra.scores ? { scores: extra.scores } : {}),
    },
  };
}
const failed = (code: "PARSE_ERROR" | "CIRCUIT_OPEN"): JudgeOutcome => ({
  ok: false,
  error: { code, message: "scripted" },
});

type Script = JudgeOutcome | (() => never);
const point = (task: string) => judgeRequestSchema.parse({ mode: "pointwise", task, response: "r" });
const pair = (task: string) => judgeRequestSchema.parse({ mode: "pairwise", task, responses: ["a", "b"] });
const group = (task: string) => judgeRequestSchema.parse({ mode: "group", task, responses: ["a", "b"] });

// [request, label, what the judge answers]
const SCRIPT: [JudgeRequest, CalibrationItem["label"], Script][] = [
  [point("p1"), true, scored(0.9)], //      pass/fail (pred, label): (T, T)
  [point("p2"), true, scored(0.3)], //      (F, T)
  [point("p3"), false, scored(0.2)], //     (F, F)
  [point("p4"), 0.8, scored(0.6)], //       (T, T), |err| 0.2
  [point("p5"), 0.2, scored(0.7)], //       (T, F), |err| 0.5
  [point("p6"), 0, scored(0.1)], //         (F, F), |err| 0.1
  [point("p7"), 1, failed("PARSE_ERROR")],
  [
    point("p8"),
    true,
    () => {
      throw new JudgeError("TIMEOUT", "scripted");
    },
  ],
  [
    point("p9"),
    true,
    () => {
      throw new Error("bug");
    },
  ], // → INTERNAL
  [group("g1"), [1, false], scored(0.5, { scores: [0.75, 0.25] })], // (T, T) |err| 0.25; (F, F)
  [pair("w1"), "first", scored(1, { winner: "first", flip: false })], //  (first, first)
  [pair("w2"), "second", scored(0.5, { winner: "tie", flip: true })], //  (tie, second)
  [pair("w3"), "tie", scored(0.5, { winner: "tie", flip: true })], //     (tie, tie)
  [pair("w4"), "first", scored(0, { winner: "second" })], //              (second, first), no flip flag
  [pair("w5"), "second", scored(0.2, { flip: false })], //                no winner: score < 0.5 → second
  [pair("w6"), "first", failed("CIRCUIT_OPEN")],
];

const scriptedJudge = async (request: JudgeRequest): Promise<JudgeOutcome> => {
  const entry = SCRIPT.find(([r]) => r.task === request.task);
  if (!entry) throw new Error(`unscripted ${request.task}`);
  const answer = entry[2];
  return typeof answer === "function" ? answer() : answer;
};

describe("calibrate", () => {
  const set: CalibrationItem[] = SCRIPT.map(([request, label]) => ({ request, label }));

  it("reports accuracy, kappa, MAE, flip rate and failures by code", async () => {
    const report = await calibrate(set, scriptedJudge);
    expect(report).toMatchObject({
      n: 16,
      judged: 12,
      failed: 4,
      failures: { PARSE_ERROR: 1, TIMEOUT: 1, INTERNAL: 1, CIRCUIT_OPEN: 1 },
    });
    // Pass/fail: 8 pairs, 6 agree. Judge says pass 4/8, labels pass 4/8 → p_e = 0.5, kappa = (0.75 − 0.5)/0.5.
    expect(report.pass_fail).toEqual({ n: 8, accuracy: 0.75, kappa: 0.5 });
    // Numeric labels: |0.6−0.8| + |0.7−0.2| + |0.1−0| + |0.75−1| = 1.05 over 4.
    expect(report.numeric?.n).toBe(4);
    expect(report.numeric?.mae).toBeCloseTo(1.05 / 4, 12);
    // Pairwise: 5 judged, 3 exact. Judge: first 1, tie 2, second 2; labels: first 2, second 2, tie 1
    // → p_e = (1·2 + 2·1 + 2·2)/25 = 8/25, kappa = (3/5 − 8/25)/(1 − 8/25) = 7/17.
    expect(report.pairwise?.n).toBe(5);
    expect(report.pairwise?.accuracy).toBeCloseTo(0.6, 12);
    expect(report.pairwise?.kappa).toBeCloseTo(7 / 17, 12);
    // Flip flags on w1, w2, w3, w5 (w4 has none): 2 of 4 flipped.
    expect(report.pairwise?.flips).toEqual({ n: 4, flipped: 2, rate: 0.5 });
  });

  it("formats the report for the terminal", async () => {
    const text = formatCalibrationReport(await calibrate(set, scriptedJudge));
    expect(text).toContain("16 items, 12 judged, 4 failed");
    expect(text).toMatch(/PARSE_ERROR 1/);
    expect(text).toMatch(/pass\/fail\s+n=8\s+accuracy 0\.750\s+kappa 0\.500/);
    // 0.2625 rounds either way in binary floating point.
    expect(text).toMatch(/numeric\s+n=4\s+MAE 0\.26[23]/);
    expect(text).toMatch(/pairwise\s+n=5\s+accuracy 0\.600\s+kappa 0\.412\s+position flips 2\/4 \(0\.500\)/);
  });

  it("says so when nothing could be judged or no result carries a flip flag", async () => {
    const report = await calibrate([{ request: pair("w6"), label: "first" }], scriptedJudge);
    expect(report).toMatchObject({ judged: 0, pass_fail: null, numeric: null, pairwise: null });
    expect(formatCalibrationReport(report)).toContain("no item was judged");
    const noFlag = await calibrate([{ request: pair("w4"), label: "first" }], scriptedJudge);
    expect(noFlag.pairwise?.flips).toEqual({ n: 0, flipped: 0, rate: null });
    expect(formatCalibrationReport(noFlag)).toContain("position flips n/a");
  });

  it("counts a group result without one score per response as COUNT_MISMATCH", async () => {
    const report = await calibrate([{ request: group("g2"), label: [1, 0] }], async () =>
      scored(0.5, { scores: [1] }),
    );
    expect(report).toMatchObject({ judged: 0, failures: { COUNT_MISMATCH: 1 } });
  });

  it("rejects a label that does not fit its mode before judging anything", async () => {
    let calls = 0;
    const judge = async () => {
      calls++;
      return scored(1);
    };
    await expect(calibrate([{ request: pair("w1"), label: true }], judge)).rejects.toMatchObject({
      code: "INVALID_REQUEST",
    });
    expect(calls).toBe(0);
  });

  it("keeps at most `concurrency` judge calls in flight", async () => {
    let inFlight = 0;
    let peak = 0;
    const judge = async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 2));
      inFlight--;
      return scored(1);
    };
    const many = Array.from({ length: 12 }, (_, i) => ({ request: point(`c${i}`), label: true }));
    const progress: number[] = [];
    const report = await calibrate(many, judge, {
      concurrency: 3,
      onProgress: (done) => progress.push(done),
    });
    expect(peak).toBe(3);
    expect(report.judged).toBe(12);
    expect(progress).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });
});

describe("cohenKappa", () => {
  const table = (yy: number, yn: number, ny: number, nn: number) => [
    ...Array<[string, string]>(yy).fill(["yes", "yes"]),
    ...Array<[string, string]>(yn).fill(["yes", "no"]),
    ...Array<[string, string]>(ny).fill(["no", "yes"]),
    ...Array<[string, string]>(nn).fill(["no", "no"]),
  ];

  it("matches the textbook example: 50 proposals, 20/5/10/15 → p_o 0.7, p_e 0.5, kappa 0.4", () => {
    expect(cohenKappa(table(20, 5, 10, 15))).toBeCloseTo(0.4, 12);
  });

  it("matches the unbalanced example: 45/15/25/15 → p_o 0.6, p_e 0.54, kappa 0.06/0.46", () => {
    expect(cohenKappa(table(45, 15, 25, 15))).toBeCloseTo(0.06 / 0.46, 12);
  });

  it("is 1 for perfect agreement, negative for systematic disagreement, null when undefined", () => {
    expect(cohenKappa(table(3, 0, 0, 3))).toBe(1);
    expect(cohenKappa(table(0, 3, 3, 0))).toBe(-1);
    expect(cohenKappa(table(5, 0, 0, 0))).toBeNull();
    expect(cohenKappa([])).toBeNull();
  });
});

describe("readCalibrationSet", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "calibrate-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads a JSONL set that calibrate judges with the real rule graders", async () => {
    const lines = [
      {
        id: "a",
        mode: "rule",
        response: "Paris",
        reference: "paris",
        grader: { type: "string_check", operation: "ieq" },
        label: true,
      },
      {
        id: "b",
        mode: "rule",
        response: "Lyon",
        reference: "paris",
        grader: { type: "string_check", operation: "ieq" },
        label: true,
      },
      {
        mode: "rule",
        response: "police kill the gunman",
        reference: "police killed the gunman",
        grader: { type: "text_similarity", metric: "rouge_l" },
        label: 0.5,
      },
      { mode: "pointwise", task: "t", response: "r", label: 0.5 },
    ];
    const path = join(dir, "set.jsonl");
    await writeFile(path, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n\n`);
    const set = await readCalibrationSet(path);
    expect(set.map((item) => item.id)).toEqual(["a", "b", undefined, undefined]);
    expect(set[3]?.request).toMatchObject({ mode: "pointwise", samples: 1 }); // request defaults applied
    expect(set[0]?.request).not.toHaveProperty("label");

    const judge = async (request: JudgeRequest): Promise<JudgeOutcome> => {
      if (request.mode !== "rule")
        return { ok: false, error: { code: "BACKEND_UNAVAILABLE", message: "no model" } };
      const { score } = gradeRule(request.grader, request);
      return scored(score);
    };
    const report = await calibrate(set, { judge }); // the judge service's shape works too
    // a: (T, T); b: (F, T); rouge_l 0.75 vs 0.5: (T, T), |err| 0.25. The pointwise item fails.
    expect(report).toMatchObject({ n: 4, judged: 3, failures: { BACKEND_UNAVAILABLE: 1 } });
    expect(report.pass_fail).toMatchObject({ n: 3 });
    expect(report.pass_fail?.accuracy).toBeCloseTo(2 / 3, 12);
    expect(report.numeric).toEqual({ n: 1, mae: 0.25 });
  });

  it.each([
    ["not JSON", "{oops", /set\.jsonl:2: not JSON/],
    ["no label", JSON.stringify({ mode: "pointwise", task: "t", response: "r" }), /:2: .*label/s],
    [
      "a label out of range",
      JSON.stringify({ mode: "pointwise", task: "t", response: "r", label: 2 }),
      /:2: .*label/s,
    ],
    ["a bad request", JSON.stringify({ mode: "pointwise", response: "r", label: 1 }), /:2: .*task/s],
    [
      "a pairwise item with a number label",
      JSON.stringify({ mode: "pairwise", task: "t", responses: ["a", "b"], label: 1 }),
      /:2: a pairwise item needs/,
    ],
    [
      "a group item with too few labels",
      JSON.stringify({ mode: "group", task: "t", responses: ["a", "b"], label: [1] }),
      /:2: a group item needs 2 labels/,
    ],
  ])("names the file and line of %s", async (_, badLine, message) => {
    const path = join(dir, "set.jsonl");
    const good = JSON.stringify({ mode: "pointwise", task: "t", response: "r", label: true });
    await writeFile(path, `${good}\n${badLine}\n`);
    await expect(readCalibrationSet(path)).rejects.toMatchObject({
      code: "INVALID_REQUEST",
      message: expect.stringMatching(message),
    });
  });
});

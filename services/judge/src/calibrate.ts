// Calibration: judge a labelled set and report how well the judge agrees with the labels, so drift is
// visible (`rlf judge calibrate --set FILE`). A set is JSONL: each line a judge request (any mode) plus
// `label` — for pointwise/reference/rule a number in [0, 1] or a boolean (pass/fail), for pairwise
// "first" | "second" | "tie", for group one number/boolean per response — and an optional `id`.
//
// Agreement is computed over the items the judge scored; failures are counted by code, never scored.
//  - pass/fail: boolean labels, and numeric labels read as pass when ≥ 0.5, against score ≥ 0.5:
//    accuracy and Cohen's kappa;
//  - numeric labels: mean absolute error of the score;
//  - pairwise: exact-winner accuracy and Cohen's kappa over {first, second, tie}, and the position-flip
//    rate: the share of items whose two orders disagreed, read from `metadata.pairwise_flip` (a boolean
//    the pairwise mode records; items without it are left out of that rate).
import { readFile } from "node:fs/promises";
import { z } from "zod";
import {
  JudgeError,
  type JudgeErrorCode,
  type JudgeOutcome,
  type JudgeRequest,
  judgeRequestSchema,
} from "./judge-types.ts";

const gradeLabelSchema = z.union([z.number().min(0).max(1), z.boolean()]);
export const calibrationLabelSchema = z.union([
  gradeLabelSchema,
  z.enum(["first", "second", "tie"]),
  z.array(gradeLabelSchema).min(1),
]);
export type CalibrationLabel = z.infer<typeof calibrationLabelSchema>;
type GradeLabel = z.infer<typeof gradeLabelSchema>;
type Winner = "first" | "second" | "tie";

export interface CalibrationItem {
  request: JudgeRequest;
  label: CalibrationLabel;
  id?: string | undefined;
}

export interface CalibrationReport {
  /** Items in the set. */
  n: number;
  judged: number;
  failed: number;
  failures: Partial<Record<JudgeErrorCode, number>>;
  /** Null where the set has no items of that kind. Accuracy/kappa null when undefined (see cohenKappa). */
  pass_fail: { n: number; accuracy: number; kappa: number | null } | null;
  numeric: { n: number; mae: number } | null;
  pairwise: {
    n: number;
    accuracy: number;
    kappa: number | null;
    /** Items whose result carried `metadata.pairwise_flip`, and the share of them that flipped. */
    flips: { n: number; flipped: number; rate: number | null };
  } | null;
}

export type JudgeFn = (request: JudgeRequest) => Promise<JudgeOutcome>;
/** What calibrate judges with: a judge function, or an object with one (the judge service). */
export type CalibrationJudge = JudgeFn | { judge: JudgeFn };

/** Why a label does not fit its request's mode, or undefined when it does. */
export function labelMismatch(request: JudgeRequest, label: CalibrationLabel): string | undefined {
  if (request.mode === "pairwise") {
    return typeof label === "string" ? undefined : 'a pairwise item needs label "first", "second" or "tie"';
  }
  if (request.mode === "group") {
    if (!Array.isArray(label)) return "a group item needs one label per response (an array)";
    if (label.length !== request.responses.length) {
      return `a group item needs ${request.responses.length} labels (one per response), got ${label.length}`;
    }
    return undefined;
  }
  return typeof label === "number" || typeof label === "boolean"
    ? undefined
    : `a ${request.mode} item needs a number in [0, 1] or a boolean label`;
}

const lineSchema = z.looseObject({ label: calibrationLabelSchema, id: z.string().optional() });

/** Reads a JSONL calibration set; throws INVALID_REQUEST naming the file and line of the first bad one. */
export async function readCalibrationSet(path: string): Promise<CalibrationItem[]> {
  const text = await readFile(path, "utf8");
  const items: CalibrationItem[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    const where = `${path}:${i + 1}`;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      throw new JudgeError("INVALID_REQUEST", `${where}: not JSON (${(error as Error).message})`);
    }
    const head = lineSchema.safeParse(json);
    if (!head.success) throw new JudgeError("INVALID_REQUEST", `${where}: ${z.prettifyError(head.error)}`);
    const { label, id, ...rest } = head.data;
    const request = judgeRequestSchema.safeParse(rest);
    if (!request.success)
      throw new JudgeError("INVALID_REQUEST", `${where}: ${z.prettifyError(request.error)}`);
    const mismatch = labelMismatch(request.data, label);
    if (mismatch) throw new JudgeError("INVALID_REQUEST", `${where}: ${mismatch}`);
    items.push({ request: request.data, label, id });
  }
  return items;
}

/**
 * Cohen's kappa between two raters' labels: (p_o − p_e) / (1 − p_e), p_o the observed agreement and
 * p_e the agreement expected by chance from each rater's label frequencies. Null for no items, or
 * when p_e = 1 (both raters used one and the same category: kappa is undefined).
 */
export function cohenKappa<T>(pairs: readonly (readonly [T, T])[]): number | null {
  const n = pairs.length;
  if (n === 0) return null;
  const a = new Map<T, number>();
  const b = new Map<T, number>();
  let agree = 0;
  for (const [x, y] of pairs) {
    if (x === y) agree++;
    a.set(x, (a.get(x) ?? 0) + 1);
    b.set(y, (b.get(y) ?? 0) + 1);
  }
  const po = agree / n;
  let pe = 0;
  for (const [category, count] of a) pe += (count / n) * ((b.get(category) ?? 0) / n);
  return pe === 1 ? null : (po - pe) / (1 - pe);
}

const isPass = (label: GradeLabel) => (typeof label === "boolean" ? label : label >= 0.5);

function winnerOf(score: number, winner: Winner | undefined): Winner {
  if (winner) return winner;
  return score > 0.5 ? "first" : score < 0.5 ? "second" : "tie";
}

/** Judges every item (at most `concurrency` at once, default 4) and reports agreement with the labels. */
export async function calibrate(
  set: readonly CalibrationItem[],
  judgeWith: CalibrationJudge,
  opts: { concurrency?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<CalibrationReport> {
  const judge: JudgeFn = typeof judgeWith === "function" ? judgeWith : (request) => judgeWith.judge(request);
  const concurrency = Math.max(1, Math.floor(opts.concurrency ?? 4));
  set.forEach((item, i) => {
    const mismatch = labelMismatch(item.request, item.label);
    if (mismatch) throw new JudgeError("INVALID_REQUEST", `calibration item ${item.id ?? i}: ${mismatch}`);
  });
  const failures: Partial<Record<JudgeErrorCode, number>> = {};
  const passFail: [boolean, boolean][] = [];
  const numeric: [number, number][] = [];
  const pairwise: [Winner, Winner][] = [];
  const flips: boolean[] = [];
  let judged = 0;
  let done = 0;

  const fail = (code: JudgeErrorCode) => {
    failures[code] = (failures[code] ?? 0) + 1;
  };
  const addGrade = (score: number, label: GradeLabel) => {
    passFail.push([score >= 0.5, isPass(label)]);
    if (typeof label === "number") numeric.push([score, label]);
  };

  const run = async (item: CalibrationItem) => {
    let outcome: JudgeOutcome;
    try {
      outcome = await judge(item.request);
    } catch (error) {
      fail(error instanceof JudgeError ? error.code : "INTERNAL");
      return;
    }
    if (!outcome.ok) {
      fail(outcome.error.code);
      return;
    }
    const { result } = outcome;
    const { label } = item;
    if (Array.isArray(label)) {
      // Group mode: one comparison per response; a result without one score per response is a failure.
      if (result.scores?.length !== label.length) {
        fail("COUNT_MISMATCH");
        return;
      }
      for (const [i, l] of label.entries()) addGrade(result.scores[i]!, l);
    } else if (typeof label === "string") {
      pairwise.push([winnerOf(result.score, result.winner), label]);
      const flip = result.metadata.pairwise_flip;
      if (typeof flip === "boolean") flips.push(flip);
    } else {
      addGrade(result.score, label);
    }
    judged++;
  };

  let next = 0;
  const worker = async () => {
    while (next < set.length) {
      const item = set[next++]!;
      await run(item);
      opts.onProgress?.(++done, set.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, set.length) }, worker));

  const accuracy = <T>(pairs: readonly (readonly [T, T])[]) =>
    pairs.filter(([x, y]) => x === y).length / pairs.length;
  const flipped = flips.filter(Boolean).length;
  return {
    n: set.length,
    judged,
    failed: set.length - judged,
    failures,
    pass_fail: passFail.length
      ? { n: passFail.length, accuracy: accuracy(passFail), kappa: cohenKappa(passFail) }
      : null,
    numeric: numeric.length
      ? {
          n: numeric.length,
          mae: numeric.reduce((sum, [score, label]) => sum + Math.abs(score - label), 0) / numeric.length,
        }
      : null,
    pairwise: pairwise.length
      ? {
          n: pairwise.length,
          accuracy: accuracy(pairwise),
          kappa: cohenKappa(pairwise),
          flips: { n: flips.length, flipped, rate: flips.length ? flipped / flips.length : null },
        }
      : null,
  };
}

const fmt = (x: number | null) => (x === null ? "n/a" : x.toFixed(3));

/** The report as a few aligned lines for the terminal. */
export function formatCalibrationReport(report: CalibrationReport): string {
  const failures = Object.entries(report.failures)
    .sort(([, a], [, b]) => b - a)
    .map(([code, count]) => `${code} ${count}`)
    .join(", ");
  const lines = [
    `calibration: ${report.n} items, ${report.judged} judged, ${report.failed} failed${failures ? ` (${failures})` : ""}`,
  ];
  if (report.pass_fail) {
    const { n, accuracy, kappa } = report.pass_fail;
    lines.push(`  pass/fail  n=${n}  accuracy ${fmt(accuracy)}  kappa ${fmt(kappa)}`);
  }
  if (report.numeric) lines.push(`  numeric    n=${report.numeric.n}  MAE ${fmt(report.numeric.mae)}`);
  if (report.pairwise) {
    const { n, accuracy, kappa, flips } = report.pairwise;
    const flipText =
      flips.n === 0
        ? "position flips n/a (results carry no pairwise_flip)"
        : `position flips ${flips.flipped}/${flips.n} (${fmt(flips.rate)})`;
    lines.push(`  pairwise   n=${n}  accuracy ${fmt(accuracy)}  kappa ${fmt(kappa)}  ${flipText}`);
  }
  if (report.judged === 0) lines.push("  no item was judged: agreement cannot be measured");
  return lines.join("\n");
}

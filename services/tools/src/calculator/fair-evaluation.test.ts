// Fair scheduling by default: with the default per-caller share (half the workers), one caller's
// backlog of expensive expressions leaves a worker for another caller's `2+2`, which is answered
// before any of the expensive ones finishes. Real worker threads; order and counts, never timing.

import { waitFor } from "@rlfactory/test-support/wait-for";
import { afterEach, describe, expect, it } from "vitest";
import { type EvaluationOutcome, IsolatedEvaluator } from "./isolated-evaluator.ts";

/** Runs until the deadline stops it (the chaos scenario's expensive expression). */
const EXPENSIVE = Array.from({ length: 30 }, () => "isPrime(9007199254740881)").join(" + ");

const live: IsolatedEvaluator[] = [];
afterEach(async () => {
  for (const e of live.splice(0)) await e.close();
});

describe("calculator fair scheduling", () => {
  it("answers another caller's 2+2 before any of one caller's queued expensive expressions", async () => {
    const evaluator = new IsolatedEvaluator({ workers: 2, timeoutMs: 3_000 });
    live.push(evaluator);
    await evaluator.warmUp();
    let expensiveSettled = 0;
    const expensive = Array.from({ length: 3 }, () =>
      evaluator.evaluate(EXPENSIVE, undefined, "number", "caller-a").finally(() => {
        expensiveSettled++;
      }),
    );
    const cheap: EvaluationOutcome = await evaluator.evaluate("2+2", undefined, "number", "caller-b");
    expect(cheap).toEqual({ ok: true, result: 4 });
    expect(expensiveSettled).toBe(0);
    // Caller A's backlog still runs, one expression at a time, each to its deadline.
    const outcomes = await Promise.all(expensive);
    expect(outcomes.every((o) => !o.ok && o.error.includes("time limit"))).toBe(true);
  }, 60_000);

  it("keeps a spare worker started while one caller holds its share, so another caller's 2+2 needs no cold start", async () => {
    // No warmUp: the server starts one worker and the rest on demand. One caller's calls alone start
    // only its share of workers; a spare beside them is what another caller's call lands on.
    const evaluator = new IsolatedEvaluator({ workers: 4, timeoutMs: 2_000 });
    live.push(evaluator);
    await Promise.all(
      ["1+1", "2+3", "3+4", "4+5"].map((e) => evaluator.evaluate(e, undefined, "number", "caller-b")),
    );
    expect(evaluator.perCaller).toBe(2);
    expect(evaluator.stats().workersStarted).toBe(3);
    // The spare was started by the pool, not by a call; wait for it to finish loading (on a loaded
    // machine that takes longer than an expensive expression's deadline), then show it is kept free.
    await waitFor(() => evaluator.stats().loaded === 3, 60_000, "the spare worker to load");
    let expensiveSettled = 0;
    const expensive = Array.from({ length: 3 }, () =>
      evaluator.evaluate(EXPENSIVE, undefined, "number", "caller-a").finally(() => {
        expensiveSettled++;
      }),
    );
    expect(await evaluator.evaluate("2+2", undefined, "number", "caller-b")).toEqual({ ok: true, result: 4 });
    expect(expensiveSettled).toBe(0);
    await Promise.all(expensive);
  }, 60_000);

  it("--per-caller N lets one caller hold N workers", async () => {
    const evaluator = new IsolatedEvaluator({ workers: 2, perCaller: 2, timeoutMs: 3_000 });
    live.push(evaluator);
    const first = [
      evaluator.evaluate("1+1", undefined, "number", "a"),
      evaluator.evaluate("2+2", undefined, "number", "a"),
    ];
    expect(evaluator.stats()).toMatchObject({ busy: 2, queued: 0 });
    expect(await Promise.all(first)).toEqual([
      { ok: true, result: 2 },
      { ok: true, result: 4 },
    ]);
  }, 60_000);
});

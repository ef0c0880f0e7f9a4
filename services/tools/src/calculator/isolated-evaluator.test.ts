// The calculator's worker pool: expressions run side by side, each with its own deadline, and a caller
// that gives up frees its worker. Order and counts only: no timings are asserted.
import { all, create } from "mathjs";
import { afterEach, describe, expect, it } from "vitest";
import type { NumberMode } from "./evaluation-messages.ts";
import { EVALUATOR_DEFAULTS, IsolatedEvaluator, START_ATTEMPTS } from "./isolated-evaluator.ts";
import { evaluateExpression } from "./math-evaluator.ts";

/** Many seconds of CPU in one expression (trial division of the largest prime below 2^53, 30 times). */
const EXPENSIVE = Array.from({ length: 30 }, () => "isPrime(9007199254740881)").join(" + ");

describe("IsolatedEvaluator pool", { timeout: 60_000 }, () => {
  let evaluator: IsolatedEvaluator | undefined;
  afterEach(async () => {
    await evaluator?.close();
    evaluator = undefined;
  });

  it("answers a cheap expression while the other workers are busy with expensive ones", async () => {
    evaluator = new IsolatedEvaluator({ workers: 3, timeoutMs: 120_000 });
    await evaluator.warmUp();
    const settled: string[] = [];
    const callers = [new AbortController(), new AbortController()];
    // Two callers (each may hold one of the three workers: the fair queue's default share).
    const expensive = callers.map((caller, i) =>
      evaluator!.evaluate(EXPENSIVE, caller.signal, "number", `expensive-${i}`).then((outcome) => {
        settled.push(`expensive ${i}`);
        return outcome;
      }),
    );
    expect(evaluator.stats()).toMatchObject({ workers: 3, busy: 2, queued: 0 });

    const cheap = await evaluator.evaluate("2+2");
    settled.push("cheap");
    expect(cheap).toEqual({ ok: true, result: 4 });
    expect(settled).toEqual(["cheap"]);
    expect(evaluator.stats()).toMatchObject({ workers: 3, busy: 2, queued: 0 });

    for (const caller of callers) caller.abort();
    expect(await Promise.all(expensive)).toEqual([
      { ok: false, error: "The evaluation was cancelled" },
      { ok: false, error: "The evaluation was cancelled" },
    ]);
    expect(evaluator.stats()).toMatchObject({ workers: 3, busy: 0, queued: 0 });
    expect(await evaluator.evaluate("3*3")).toEqual({ ok: true, result: 9 });
  });

  it("queues in order when every worker is busy, and a cancelled expression frees its worker", async () => {
    evaluator = new IsolatedEvaluator({ workers: 1, timeoutMs: 120_000 });
    await evaluator.warmUp();
    const caller = new AbortController();
    const order: string[] = [];
    const expensive = evaluator.evaluate(EXPENSIVE, caller.signal).then((o) => {
      order.push("expensive");
      return o;
    });
    const first = evaluator.evaluate("1+1").then((o) => {
      order.push("1+1");
      return o;
    });
    const second = evaluator.evaluate("2+2").then((o) => {
      order.push("2+2");
      return o;
    });
    expect(evaluator.stats()).toMatchObject({ workers: 1, busy: 1, queued: 2 });
    caller.abort();
    expect(await Promise.all([expensive, first, second])).toEqual([
      { ok: false, error: "The evaluation was cancelled" },
      { ok: true, result: 2 },
      { ok: true, result: 4 },
    ]);
    expect(order).toEqual(["expensive", "1+1", "2+2"]);
  });

  it("stops an expression at its deadline with a typed error and keeps serving", async () => {
    // A deadline the cheap expression meets even on a loaded machine, the expensive one never.
    evaluator = new IsolatedEvaluator({ workers: 2, timeoutMs: 1_000 });
    await evaluator.warmUp();
    const [late, cheap] = await Promise.all([evaluator.evaluate(EXPENSIVE), evaluator.evaluate("2^10")]);
    expect(late).toEqual({ ok: false, error: "The expression exceeded the time limit of 1000 ms" });
    expect(cheap).toEqual({ ok: true, result: 1024 });
    expect(await evaluator.evaluate("7*6")).toEqual({ ok: true, result: 42 });
    expect(evaluator.stats()).toMatchObject({ workers: 2, busy: 0, queued: 0 });
  });

  it("drops a queued expression whose caller gives up before a worker is free", async () => {
    evaluator = new IsolatedEvaluator({ workers: 1, timeoutMs: 200 });
    await evaluator.warmUp();
    const running = evaluator.evaluate(EXPENSIVE);
    const caller = new AbortController();
    const queued = evaluator.evaluate("1+1", caller.signal);
    expect(evaluator.stats().queued).toBe(1);
    caller.abort();
    expect(await queued).toEqual({ ok: false, error: "The evaluation was cancelled" });
    expect(evaluator.stats().queued).toBe(0);
    expect((await running).ok).toBe(false);
  });

  it("refuses a pool without workers", () => {
    expect(() => new IsolatedEvaluator({ workers: 0 })).toThrow("workers must be a positive integer");
  });
});

/** One simple expression per number mode, with its answer. */
const SIMPLE: { expression: string; mode: NumberMode; result: number | string }[] = [
  { expression: "2+2", mode: "number", result: 4 },
  { expression: "1/3 + 1/6", mode: "fraction", result: "1/2" },
  { expression: "0.1 + 0.2", mode: "bignumber", result: "0.3" },
];

describe("IsolatedEvaluator fresh workers", { timeout: 120_000 }, () => {
  it("answers simple expressions of every number mode on fresh workers, many at once, without replacing a worker", async () => {
    // Every round starts a new pool, so each expression lands on a worker that has just loaded.
    for (let round = 0; round < 2; round++) {
      const pool = new IsolatedEvaluator({ workers: 4 });
      try {
        const cases = Array.from({ length: 12 }, (_, i) => SIMPLE[i % SIMPLE.length]!);
        // One caller each: a single caller holds at most half the workers (the fair queue's share).
        const outcomes = await Promise.all(
          cases.map((c, i) => pool.evaluate(c.expression, undefined, c.mode, `caller-${i}`)),
        );
        expect(outcomes).toEqual(cases.map((c) => ({ ok: true, result: c.result })));
        // No worker ran out of memory or failed to start: the four first started are still serving.
        expect(pool.stats()).toMatchObject({ workersStarted: 4, startFailures: 0, busy: 0, queued: 0 });
      } finally {
        await pool.close();
      }
    }
  });

  it("keeps a worker's heap far below its cap with every function of every number mode built", async () => {
    const pool = new IsolatedEvaluator({ workers: 1 });
    try {
      // Every name an expression can reference (mathjs builds its functions on first use).
      const names = Object.keys(create(all!, {})).filter((name) => {
        try {
          return evaluateExpression(`typeOf(${name})`) === "function";
        } catch {
          return false;
        }
      });
      expect(names.length).toBeGreaterThan(200);
      // As few expressions as fit the length limit: size([typeOf(abs), typeOf(acos), ...]).
      const expressions = [""];
      for (const name of names) {
        const item = `typeOf(${name})`;
        const last = expressions.at(-1)!;
        if (last.length + item.length > 900) expressions.push(item);
        else expressions[expressions.length - 1] = last === "" ? item : `${last}, ${item}`;
      }
      const failures: string[] = [];
      for (const mode of ["number", "fraction", "bignumber"] as const) {
        for (const list of expressions) {
          const outcome = await pool.evaluate(`size([${list}])`, undefined, mode);
          if (!outcome.ok) failures.push(`${mode}: ${outcome.error}`);
        }
      }
      expect(failures).toEqual([]);
      const stats = pool.stats();
      expect(stats).toMatchObject({ workersStarted: 1, startFailures: 0 });
      // V8 stops a worker whose heap stays above 80% of its cap across full collections; what the
      // worker reports includes garbage not yet collected, so it is an upper bound of what it keeps.
      expect(stats.heapUsedMb).toBeGreaterThan(0);
      expect(stats.heapUsedMb).toBeLessThan(EVALUATOR_DEFAULTS.maxHeapMb * 0.8);
    } finally {
      await pool.close();
    }
  });

  it("answers a worker that cannot start as the server's failure, never the expression's", async () => {
    // A heap too small to load mathjs: every worker dies before it is ready.
    const pool = new IsolatedEvaluator({ workers: 1, maxHeapMb: 8 });
    try {
      expect(await pool.evaluate("2+2")).toEqual({
        ok: false,
        error: "The calculator could not start an evaluation worker; try again later",
      });
      expect(pool.stats()).toMatchObject({ startFailures: START_ATTEMPTS, workersStarted: START_ATTEMPTS });
    } finally {
      await pool.close();
    }
  });
});

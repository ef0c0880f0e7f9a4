// The calculator's worker pool: expressions run side by side, each with its own deadline, and a caller
// that gives up frees its worker. Order and counts only: no timings are asserted.
import { afterEach, describe, expect, it } from "vitest";
import { IsolatedEvaluator } from "./isolated-evaluator.ts";

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
    const expensive = callers.map((caller, i) =>
      evaluator!.evaluate(EXPENSIVE, caller.signal).then((outcome) => {
        settled.push(`expensive ${i}`);
        return outcome;
      }),
    );
    expect(evaluator.stats()).toEqual({ workers: 3, busy: 2, queued: 0 });

    const cheap = await evaluator.evaluate("2+2");
    settled.push("cheap");
    expect(cheap).toEqual({ ok: true, result: 4 });
    expect(settled).toEqual(["cheap"]);
    expect(evaluator.stats()).toEqual({ workers: 3, busy: 2, queued: 0 });

    for (const caller of callers) caller.abort();
    expect(await Promise.all(expensive)).toEqual([
      { ok: false, error: "The evaluation was cancelled" },
      { ok: false, error: "The evaluation was cancelled" },
    ]);
    expect(evaluator.stats()).toEqual({ workers: 3, busy: 0, queued: 0 });
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
    expect(evaluator.stats()).toEqual({ workers: 1, busy: 1, queued: 2 });
    caller.abort();
    expect(await Promise.all([expensive, first, second])).toEqual([
      { ok: false, error: "The evaluation was cancelled" },
      { ok: true, result: 2 },
      { ok: true, result: 4 },
    ]);
    expect(order).toEqual(["expensive", "1+1", "2+2"]);
  });

  it("stops an expression at its deadline with a typed error and keeps serving", async () => {
    evaluator = new IsolatedEvaluator({ workers: 2, timeoutMs: 200 });
    await evaluator.warmUp();
    const [late, cheap] = await Promise.all([evaluator.evaluate(EXPENSIVE), evaluator.evaluate("2^10")]);
    expect(late).toEqual({ ok: false, error: "The expression exceeded the time limit of 200 ms" });
    expect(cheap).toEqual({ ok: true, result: 1024 });
    expect(await evaluator.evaluate("7*6")).toEqual({ ok: true, result: 42 });
    expect(evaluator.stats()).toEqual({ workers: 2, busy: 0, queued: 0 });
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

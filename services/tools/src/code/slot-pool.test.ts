// The pool that bounds concurrent runs: slots handed out in order, waiters queued, aborts honoured.
import { describe, expect, it } from "vitest";
import { SlotPool } from "./slot-pool.ts";

describe("slot pool", () => {
  it("hands out distinct slots, then queues callers until a slot is released", async () => {
    const pool = new SlotPool(2);
    const a = await pool.acquire();
    const b = await pool.acquire();
    expect(new Set([a, b])).toEqual(new Set([0, 1]));
    const order: string[] = [];
    const third = pool.acquire().then((slot) => order.push(`third:${slot}`));
    const fourth = pool.acquire().then((slot) => order.push(`fourth:${slot}`));
    await Promise.resolve();
    expect(order).toEqual([]);
    pool.release(b);
    pool.release(a);
    await Promise.all([third, fourth]);
    expect(order).toEqual([`third:${b}`, `fourth:${a}`]);
  });

  it("drops a queued caller whose signal aborts, and refuses an already-aborted one", async () => {
    const pool = new SlotPool(1);
    const held = await pool.acquire();
    const controller = new AbortController();
    const waiting = pool.acquire(controller.signal);
    controller.abort(new Error("cancelled"));
    await expect(waiting).rejects.toThrow("cancelled");
    await expect(pool.acquire(AbortSignal.abort(new Error("too late")))).rejects.toThrow("too late");
    const next = pool.acquire();
    pool.release(held);
    expect(await next).toBe(held);
  });

  it("releases the slot when the task fails", async () => {
    const pool = new SlotPool(1);
    await expect(pool.with(async () => Promise.reject(new Error("task failed")))).rejects.toThrow(
      "task failed",
    );
    expect(await pool.with(async (slot) => slot)).toBe(0);
  });
});

// The fair queue's order: callers take turns, each caller's jobs keep their order, and a caller
// at its limit of running jobs lets the others through.
import { describe, expect, it } from "vitest";
import { FairQueue } from "./fair-queue.ts";

/** Takes jobs until the queue gives none, returning them as "caller:job". */
function drain(queue: FairQueue<string>): string[] {
  const taken: string[] = [];
  for (let next = queue.take(); next !== undefined; next = queue.take()) {
    taken.push(`${next.caller}:${next.job}`);
  }
  return taken;
}

describe("FairQueue", () => {
  it("serves callers in turn, each caller's jobs in order", () => {
    const queue = new FairQueue<string>(10);
    for (const job of ["1", "2", "3", "4"]) queue.push("a", job);
    queue.push("b", "1");
    queue.push("c", "1");
    queue.push("b", "2");
    expect(drain(queue)).toEqual(["a:1", "b:1", "c:1", "a:2", "b:2", "a:3", "a:4"]);
  });

  it("lets a caller at its limit wait while others start", () => {
    const queue = new FairQueue<string>(1);
    for (const job of ["1", "2", "3"]) queue.push("a", job);
    expect(drain(queue)).toEqual(["a:1"]);
    queue.push("b", "select 1");
    expect(drain(queue)).toEqual(["b:select 1"]);
    expect(queue.runningOf("a")).toBe(1);
    queue.finished("a");
    expect(drain(queue)).toEqual(["a:2"]);
    expect(queue.size).toBe(1);
  });

  it("drops a cancelled job, and only a waiting one", () => {
    const queue = new FairQueue<string>(1);
    queue.push("a", "1");
    queue.push("a", "2");
    queue.push("b", "1");
    expect(drain(queue)).toEqual(["a:1", "b:1"]);
    expect(queue.remove("a", "1")).toBe(false);
    expect(queue.remove("a", "2")).toBe(true);
    queue.finished("a");
    expect(queue.size).toBe(0);
    expect(drain(queue)).toEqual([]);
  });

  it("counts the waiting jobs that could start now, within each caller's limit", () => {
    const queue = new FairQueue<string>(2);
    for (const job of ["1", "2", "3"]) queue.push("a", job);
    queue.push("b", "1");
    expect(queue.startable()).toBe(3);
    expect([queue.take()?.job, queue.take()?.job]).toEqual(["1", "1"]);
    expect(queue.startable()).toBe(1); // a: 1 running, room for 1 more of its 2 waiting
    queue.take();
    expect(queue.startable()).toBe(0);
    queue.finished("a");
    expect(queue.startable()).toBe(1);
  });

  it("refuses a limit below 1", () => {
    expect(() => new FairQueue(0)).toThrow(/per-caller limit must be a whole number ≥ 1/);
  });
});

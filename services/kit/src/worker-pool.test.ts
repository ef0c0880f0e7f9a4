// The kit's worker pool on real worker threads: fair turns between callers, a deadline or a cancel
// stops the worker and a fresh one takes its place, a crash is the task's failure, a worker that
// cannot load is the pool's. Blocking tasks wait on a gate the test opens: counts and order only.
import { afterEach, describe, expect, it } from "vitest";
import { WorkerPool, type WorkerPoolOptions } from "./worker-pool.ts";
import type { FixtureTask } from "./worker-pool-fixture.ts";

const FIXTURE = new URL("./worker-pool-fixture.ts", import.meta.url);

const live: WorkerPool<FixtureTask, string>[] = [];
afterEach(async () => {
  for (const pool of live.splice(0)) await pool.close();
});

function pool(options: Partial<WorkerPoolOptions<FixtureTask>> = {}): WorkerPool<FixtureTask, string> {
  const made = new WorkerPool<FixtureTask, string>({
    filename: FIXTURE,
    workers: 2,
    warmUpTask: { echo: "warm" },
    ...options,
  });
  live.push(made);
  return made;
}

/** Atomics.waitAsync (Node 16 on): not in the TypeScript lib this project targets. */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(array: Int32Array, index: number, value: number): { async: boolean; value: unknown };
  }
).waitAsync;

/** A task that holds its worker until `open()`; `started()` resolves once a worker runs it. */
function gate() {
  const buffer = new SharedArrayBuffer(8);
  return {
    task: { gate: buffer },
    async started() {
      const wait = waitAsync(new Int32Array(buffer), 1, 0);
      if (wait.async) await wait.value;
    },
    open() {
      Atomics.store(new Int32Array(buffer), 0, 1);
      Atomics.notify(new Int32Array(buffer), 0);
    },
  };
}

describe("WorkerPool", { timeout: 60_000 }, () => {
  it("gives another caller a worker while one caller's backlog waits for its share", async () => {
    const workers = pool({ perCaller: 1 });
    const held = [gate(), gate()];
    const backlog = held.map((g) => workers.run(g.task, { caller: "a" }));
    expect(workers.stats()).toMatchObject({ busy: 1, queued: 1 });
    expect(await workers.run({ echo: "b's turn" }, { caller: "b" })).toEqual({
      status: "done",
      value: "b's turn",
    });
    for (const g of held) g.open();
    expect(await Promise.all(backlog)).toEqual([
      { status: "done", value: "released" },
      { status: "done", value: "released" },
    ]);
    expect(workers.stats()).toMatchObject({ busy: 0, queued: 0, workersStarted: 2, startFailures: 0 });
  });

  it("stops a task at its deadline or its caller's cancel, and a fresh worker takes the slot", async () => {
    const workers = pool({ workers: 1, timeoutMs: 300 });
    await workers.warmUp();
    expect(await workers.run(gate().task)).toEqual({ status: "timeout" });
    const caller = new AbortController();
    const running = gate();
    const cancelled = workers.run(running.task, { signal: caller.signal });
    const queued = workers.run({ echo: "after" });
    expect(workers.stats()).toMatchObject({ busy: 1, queued: 1 });
    await running.started();
    caller.abort();
    expect(await cancelled).toEqual({ status: "cancelled" });
    expect(await queued).toEqual({ status: "done", value: "after" });
    // The first worker and one fresh one per stopped task.
    expect(workers.stats()).toMatchObject({ workersStarted: 3, startFailures: 0, busy: 0, queued: 0 });
  });

  it("answers a task that throws, or whose worker dies, as the task's failure, and keeps serving", async () => {
    const workers = pool({ workers: 1 });
    const thrown = await workers.run({ fail: "bad task" });
    expect(thrown).toMatchObject({ status: "failed", error: { message: "bad task" } });
    // A throw leaves the worker as it was.
    expect(workers.stats()).toMatchObject({ workersStarted: 1 });
    const crashed = await workers.run({ exit: 3 });
    expect(crashed.status).toBe("failed");
    expect(await workers.run({ echo: "still here" })).toEqual({ status: "done", value: "still here" });
    expect(workers.stats()).toMatchObject({ workersStarted: 2, startFailures: 0 });
  });

  it("answers a worker that cannot load as the pool's failure, after three fresh tries", async () => {
    const workers = pool({ workers: 1, filename: new URL("./no-such-worker.ts", import.meta.url) });
    expect(await workers.run({ echo: "never" })).toEqual({ status: "no-worker" });
    expect(workers.stats()).toMatchObject({ workersStarted: 3, startFailures: 3 });
  });

  it("lets a loading worker finish loading before close stops it", async () => {
    // Stopping a thread while it reads its modules can abort the whole process; close waits instead.
    const mark = new SharedArrayBuffer(4);
    const workers = pool({ workers: 1, warmUpTask: { mark } });
    const warming = workers.warmUp();
    await workers.close();
    await warming;
    expect(Atomics.load(new Int32Array(mark), 0)).toBe(1);
    expect(await workers.run({ echo: "after close" })).toEqual({ status: "closed" });
  });

  it("refuses a pool without workers", () => {
    expect(() => pool({ workers: 0 })).toThrow("workers must be a positive integer");
  });
});

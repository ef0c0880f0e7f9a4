// The worker module of worker-pool.test.ts: answers an echo, marks that it ran, waits on a gate the
// test opens, throws, or exits its thread, as the task says.
export type FixtureTask =
  | { echo: string }
  | { gate: SharedArrayBuffer }
  | { exit: number }
  | { fail: string }
  | { mark: SharedArrayBuffer };

export default function handle(task: FixtureTask): string {
  if ("mark" in task) {
    // Says this worker loaded and ran a task (slot 0).
    Atomics.store(new Int32Array(task.mark), 0, 1);
    return "marked";
  }
  if ("gate" in task) {
    const gate = new Int32Array(task.gate);
    // Says it has started (slot 1), then blocks this thread, using no CPU, until the test opens the
    // gate (slot 0) or the thread is stopped.
    Atomics.store(gate, 1, 1);
    Atomics.notify(gate, 1);
    Atomics.wait(gate, 0, 0);
    return "released";
  }
  if ("exit" in task) process.exit(task.exit);
  if ("fail" in task) throw new Error(task.fail);
  return task.echo;
}

// Throughput of a served bundle (form "environment"): episodes (create for a task + its ground-truth
// actions + close) per second at 64 in flight, over the bundle's tasks with actions.
//   node services/environments/scripts/bench-bundle.ts BUNDLE [--workers N] [--episodes N]
import { parseArgs } from "node:util";
import { readBundle, startBundleHost } from "../src/index.ts";

const { values, positionals } = parseArgs({
  options: { workers: { type: "string", default: "2" }, episodes: { type: "string", default: "2000" } },
  allowPositionals: true,
});
const bundle = await readBundle(positionals[0] ?? ".");
const tasks = bundle.tasks.filter((t) => (t.actions?.length ?? 0) > 0);
if (bundle.form !== "environment" || tasks.length === 0)
  throw new Error("needs an environment bundle with tasks with actions");
const workers = Number(values.workers);
const total = Number(values.episodes);
const IN_FLIGHT = 64;

const host = await startBundleHost(bundle, { workers });
let started = 0;
let calls = 0;
const t0 = performance.now();
await Promise.all(
  Array.from({ length: IN_FLIGHT }, async () => {
    while (started < total) {
      const task = tasks[started++ % tasks.length]!;
      const handle = await host.create({ task: task.id });
      for (const action of task.actions ?? []) {
        const result = await host.call(handle, action.name, action.arguments);
        if (!result.ok) throw new Error(`${action.name}: ${result.error.message}`);
        calls++;
      }
      await host.close(handle);
    }
  }),
);
const seconds = (performance.now() - t0) / 1000;
await host.stop();
console.log(
  JSON.stringify({
    bundle: bundle.name,
    workers,
    inFlight: IN_FLIGHT,
    episodes: total,
    calls,
    episodesPerSecond: Math.round(total / seconds),
    callsPerSecond: Math.round(calls / seconds),
  }),
);

// Throughput of the BFCL pack: episodes (create + 10 calls + snapshot + close) per second at 64 in
// flight, and the time of a fork of 16. Needs the pack's venv (`npm run setup:environments`).
//   node services/environments/scripts/bench-bfcl.ts [--workers N] [--episodes N]
import { parseArgs } from "node:util";
import { nearestRankPercentile } from "@rlfactory/kit";
import { startBfclHost } from "../src/index.ts";

const { values } = parseArgs({
  options: { workers: { type: "string", default: "2" }, episodes: { type: "string", default: "2000" } },
});
const workers = Number(values.workers);
const total = Number(values.episodes);
const IN_FLIGHT = 64;
const config = {
  involved_classes: ["GorillaFileSystem", "TwitterAPI"],
  initial_config: {
    GorillaFileSystem: {
      root: {
        alex: {
          type: "directory",
          contents: {
            documents: { type: "directory", contents: { "notes.txt": { type: "file", content: "hello" } } },
          },
        },
      },
    },
    TwitterAPI: { username: "alex", password: "secret", authenticated: true, tweets: {}, comments: {} },
  },
};

const host = await startBfclHost({ workers });
async function episode(): Promise<void> {
  const handle = await host.create(config);
  for (let i = 0; i < 10; i++) await host.call(handle, i % 2 ? "ls" : "pwd", {});
  await host.snapshot(handle);
  await host.close(handle);
}
let started = 0;
const t0 = performance.now();
await Promise.all(
  Array.from({ length: IN_FLIGHT }, async () => {
    while (started < total) {
      started++;
      await episode();
    }
  }),
);
const seconds = (performance.now() - t0) / 1000;
const parent = await host.create(config);
const forks: number[] = [];
for (let i = 0; i < 50; i++) {
  const t = performance.now();
  const handles = await host.fork(parent, 16);
  forks.push(performance.now() - t);
  await Promise.all(handles.map((h) => host.close(h)));
}
await host.stop();
console.log(
  JSON.stringify({
    workers,
    inFlight: IN_FLIGHT,
    episodes: total,
    episodesPerSecond: Math.round(total / seconds),
    fork16MedianMs: Number(nearestRankPercentile(forks, 50)!.toFixed(2)),
    fork16P90Ms: Number(nearestRankPercentile(forks, 90)!.toFixed(2)),
  }),
);

// The measurement loop shared by the benchmarks: `concurrency` workers issue `n` calls in total;
// latency per call, throughput over the wall time.

import { nearestRankPercentile } from "@rlfactory/kit";

export interface Measurement {
  concurrency: number;
  requests: number;
  errors: number;
  throughput_per_s: number;
  p50_ms: number;
  p99_ms: number;
  mean_ms: number;
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/** `fn(i)` resolves true on success; a rejection or false counts as an error. */
export async function measure(
  fn: (i: number) => Promise<boolean>,
  concurrency: number,
  n: number,
): Promise<Measurement> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const t0 = performance.now();
        if (!(await fn(i).catch(() => false))) errors++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const wallS = (performance.now() - started) / 1000;
  const q = (p: number) => nearestRankPercentile(latencies, p * 100) ?? 0;
  return {
    concurrency,
    requests: latencies.length,
    errors,
    throughput_per_s: round(latencies.length / wallS, 2),
    p50_ms: round(q(0.5), 3),
    p99_ms: round(q(0.99), 3),
    mean_ms: round(latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length), 3),
  };
}

import { defineConfig } from "vitest/config";

// Tests spawn real servers on loopback. Three groups, run one after the other:
//  - "parallel": everything that does not measure time, two files at a time;
//  - "exclusive": files that must measure wall time (the benchmark smoke run, which also loads the
//    machine), one file at a time on an otherwise idle machine;
//  - "stack": files that run `npm start` (rlf stack) on its fixed loopback ports, one at a time.
// Tests prove behaviour by counts, order, observed concurrency and events, not elapsed time; the one
// timing assert left is an acceptance criterion (TIMEOUT within the deadline + 50 ms).
const EXCLUSIVE = [
  // the deadline's acceptance: TIMEOUT within deadline + 50 ms, on the gateway's clock
  "test/gateway/policies.e2e.test.ts",
  "test/bench/**/*.test.ts",
  // the chaos scenarios SIGSTOP, kill and load real servers; their checks count what happened
  "test/chaos/chaos.test.ts",
  // containers share the machine's Docker daemon and loopback ports, and load it for 30 s
  "test/deploy/containers.e2e.test.ts",
  "test/deploy/sim-profile.e2e.test.ts",
];
const STACK = ["test/readme.e2e.test.ts", "test/stack/**/*.test.ts"];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    // a bound on setup (starting services), not a measure: generous, since CI machines run many at once
    hookTimeout: 180_000,
    pool: "forks",
    projects: [
      {
        extends: true,
        test: {
          name: "parallel",
          include: [
            "contracts/src/**/*.test.ts",
            "clients/src/**/*.test.ts",
            "gateway/src/**/*.test.ts",
            "services/*/src/**/*.test.ts",
            "simulators/src/**/*.test.ts",
            "test/**/*.test.ts",
          ],
          exclude: [...EXCLUSIVE, ...STACK, "**/node_modules/**"],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "exclusive",
          include: EXCLUSIVE,
          maxWorkers: 1,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: "stack",
          include: STACK,
          maxWorkers: 1,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});

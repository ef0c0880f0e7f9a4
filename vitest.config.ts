import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["gateway/src/**/*.test.ts", "services/*/src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Tests spawn real servers on loopback; keep parallelism modest on small CI machines.
    maxWorkers: 2,
    pool: "forks",
  },
});

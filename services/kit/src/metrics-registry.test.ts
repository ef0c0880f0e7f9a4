// A service registry's scrape text: every metric named rlf_<service>_…, the prefix never doubled.
import { Counter } from "prom-client";
import { describe, expect, it } from "vitest";
import { createServiceRegistry, metricPrefix } from "./metrics-registry.ts";

/** The metric names of a scrape (from its `# TYPE` lines). */
function metricNames(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1] as string);
}

describe("createServiceRegistry", () => {
  it("exports the process metrics once prefixed, next to the service's own", async () => {
    const registry = createServiceRegistry("kit_test");
    new Counter({ name: "rlf_kit_test_calls_total", help: "calls", registers: [registry] }).inc();
    const text = await registry.metrics();
    const names = metricNames(text);
    expect(names).toContain("rlf_kit_test_process_cpu_user_seconds_total");
    expect(names).toContain("rlf_kit_test_process_resident_memory_bytes");
    expect(names).toContain("rlf_kit_test_nodejs_eventloop_lag_seconds");
    expect(text).toMatch(/^rlf_kit_test_calls_total 1$/m);
    expect(names.length).toBeGreaterThan(10);
    for (const name of names) {
      expect(name.startsWith("rlf_kit_test_")).toBe(true);
      expect(name).not.toMatch(/process_process|rlf_kit_test_.*rlf_kit_test_/);
    }
  });

  it("gives each service its own registry", async () => {
    const a = createServiceRegistry("alpha");
    const b = createServiceRegistry("beta");
    expect(metricNames(await a.metrics()).every((n) => n.startsWith("rlf_alpha_"))).toBe(true);
    expect(metricNames(await b.metrics()).every((n) => n.startsWith("rlf_beta_"))).toBe(true);
  });

  it("refuses a service name that is not snake_case or already carries the prefix", () => {
    expect(metricPrefix("judge")).toBe("rlf_judge_");
    for (const bad of ["", "Judge", "judge_", "rlf_judge", "judge-server", "1judge"]) {
      expect(() => metricPrefix(bad)).toThrow(/snake_case/);
    }
  });
});

import { buildTrajectory, fixtureTrajectories } from "@rlfactory/test-support/report-fixtures";
import { describe, expect, it } from "vitest";
import { summarizeRollout } from "./summary.ts";
import { formatDuration, formatNumber, formatSummary } from "./summary-text.ts";

describe("formatSummary", () => {
  const text = formatSummary(summarizeRollout(fixtureTrajectories(), { wallMs: 2000 }));
  const line = (label: string) => text.split("\n").find((l) => l.startsWith(label)) ?? "";

  it("gives the mean turn reward per sampled turn when trajectories carry turn_rewards", () => {
    expect(line("turn reward")).toBe("");
    const t = {
      ...buildTrajectory({
        group: "g",
        prompt: 2,
        turns: ["S1", "O1", "S1"],
        reward: 1,
        status: "completed",
      }),
      turn_rewards: [4 / 3, 0, 1],
    };
    const withTurns = formatSummary(summarizeRollout([t], { wallMs: 1 }));
    expect(withTurns.split("\n").find((l) => l.startsWith("turn reward"))).toMatch(
      /^turn reward +turn 1 1\.333 \(1\) · turn 2 1 \(1\) \(mean per sampled turn\)$/,
    );
  });

  it("is a compact table of about fifteen lines", () => {
    const lines = text.split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(10);
    expect(lines.length).toBeLessThanOrEqual(18);
    expect(lines.every((l) => l.length <= 160)).toBe(true);
  });

  it("mentions the key numbers: throughput, statuses, reward, EM, turns, tools, errors, tokens", () => {
    expect(line("rollout")).toContain("10 trajectories in 2 s");
    expect(line("rollout")).toContain("5 traj/s");
    expect(line("rollout")).toContain("20.5 sampled tok/s");
    expect(line("status")).toMatch(/completed 6.*truncated 2.*aborted 1.*failed 1/);
    expect(line("reward ")).toContain("mean 0.5");
    expect(line("reward ")).toContain("scored 9/10");
    expect(line("EM")).toContain("0.333");
    expect(line("EM")).toContain("format 0.9");
    expect(line("reward errs")).toContain("judge/TIMEOUT 1");
    expect(line("turns")).toMatch(/mean 1\.8.*p50 1.*max 4/);
    expect(line("tool calls")).toMatch(/^tool calls\s+8 \(0\.8\/traj\).*3 errors \(37\.5%\)/);
    expect(line("  search")).toMatch(/6 calls.*2 err.*p50 7 ms.*p95 300 ms/);
    expect(line("  fetch")).toMatch(/p95 1\.5 s/);
    expect(line("errors")).toContain("TIMEOUT 2 · UNAVAILABLE 1");
    expect(line("tokens")).toContain("prompt 55 · sampled 41 · observation 14");
    expect(line("groups")).toContain("zero-advantage 2/3");
  });

  it("prints an empty rollout without failing", () => {
    const empty = formatSummary(summarizeRollout([], { wallMs: 0 }));
    expect(empty).toContain("0 trajectories");
    expect(empty).toContain("none scored");
  });
});

describe("number formatting", () => {
  it("drops trailing zeros and scales durations", () => {
    expect(formatNumber(0.5)).toBe("0.5");
    expect(formatNumber(1 / 3)).toBe("0.333");
    expect(formatNumber(null)).toBe("–");
    expect(formatDuration(0.4)).toBe("0.4 ms");
    expect(formatDuration(1500)).toBe("1.5 s");
    expect(formatDuration(200_000)).toBe("3 min 20 s");
  });
});

// The terminal form of a run summary: a compact label/value table (about fifteen lines) printed at
// the end of `rlf rollout`. Plain text, no colour codes, so it reads the same in a log file.
import type { RolloutSummary } from "./summary.ts";

/** A number with at most `digits` decimals, trailing zeros dropped; "–" for null. */
export function formatNumber(x: number | null, digits = 3): string {
  if (x === null) return "–";
  if (Number.isInteger(x)) return String(x);
  return String(Number(x.toFixed(digits)));
}

/** Milliseconds as "850 ms", "1.25 s" or "3 min 20 s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${formatNumber(ms, 1)} ms`;
  if (ms < 60_000) return `${formatNumber(ms / 1000, 2)} s`;
  const min = Math.floor(ms / 60_000);
  return `${min} min ${Math.round((ms - min * 60_000) / 1000)} s`;
}

/** `part` as a percentage of `whole` ("12.5%"), "–" when `whole` is 0. */
export function formatPercent(part: number, whole: number): string {
  return whole === 0 ? "–" : `${formatNumber((100 * part) / whole, 1)}%`;
}
const pct = formatPercent;

/** How many tools get their own line (the busiest ones); the rest are summed. */
const TOOL_LINES = 4;

export function formatSummary(s: RolloutSummary): string {
  const rows: [string, string][] = [];
  const add = (label: string, value: string) => rows.push([label, value]);
  const tp = s.throughput;

  add(
    "rollout",
    `${s.trajectories} trajectories in ${formatDuration(s.wall_ms)}` +
      (tp.trajectories_per_s === null
        ? ""
        : ` (${formatNumber(tp.trajectories_per_s, 2)} traj/s, ${formatNumber(tp.sampled_tokens_per_s, 1)} sampled tok/s)`),
  );
  add(
    "status",
    (["completed", "truncated", "aborted", "failed"] as const).map((k) => `${k} ${s.status[k]}`).join(" · "),
  );
  if (s.status_reasons.length > 0) {
    add(
      "reasons",
      s.status_reasons
        .slice(0, 4)
        .map((r) => `${r.status}/${r.reason} ${r.count}`)
        .join(" · "),
    );
  }
  const r = s.reward;
  add(
    "reward",
    r.scored === 0
      ? `none scored (${r.unscored} unscored)`
      : `mean ${formatNumber(r.mean)} ± ${formatNumber(r.std)} (std) [${formatNumber(r.min)}, ${formatNumber(r.max)}]` +
          ` · scored ${r.scored}/${s.trajectories}`,
  );
  const others = Object.entries(s.reward_components)
    .filter(([name]) => name !== "exact_match" && name !== "em")
    .map(([name, c]) => `${name} ${formatNumber(c.mean)}`);
  add("EM", [formatNumber(s.exact_match), ...others].join(" · "));
  if (s.reward_errors.total > 0) {
    add("reward errs", s.reward_errors.by_code.map((e) => `${e.component}/${e.code} ${e.count}`).join(" · "));
  }
  if (s.capture) {
    add(
      "capture",
      `${s.capture.trajectories} agent trajectories · ${s.capture.diverged} diverged, at ${s.capture.diverged_requests} requests (each record keeps its last segment)`,
    );
  }
  if (s.turns) {
    add(
      "turns",
      `mean ${formatNumber(s.turns.mean, 2)} · p50 ${s.turns.p50} · max ${s.turns.max} (sampled turns/trajectory)`,
    );
  }
  if (s.turn_rewards && s.turn_rewards.length > 0) {
    add(
      "turn reward",
      `${s.turn_rewards.map((t) => `turn ${t.turn} ${formatNumber(t.mean)} (${t.count})`).join(" · ")} (mean per sampled turn)`,
    );
  }
  const tc = s.tool_calls;
  add(
    "tool calls",
    `${tc.total} (${formatNumber(tc.per_trajectory_mean, 2)}/traj) · ${tc.errors} errors (${pct(tc.errors, tc.total)})`,
  );
  for (const t of tc.by_tool.slice(0, TOOL_LINES)) {
    const l = t.latency_ms;
    add(
      `  ${t.name}`,
      `${t.count} calls · ${t.errors} err` +
        (l
          ? ` · p50 ${formatDuration(l.p50)} · p95 ${formatDuration(l.p95)} · p99 ${formatDuration(l.p99)} · max ${formatDuration(l.max)}`
          : ""),
    );
  }
  if (tc.by_tool.length > TOOL_LINES) {
    const rest = tc.by_tool.slice(TOOL_LINES);
    add(`  (+${rest.length} tools)`, `${rest.reduce((n, t) => n + t.count, 0)} calls`);
  }
  add(
    "errors",
    tc.by_error_code.length === 0 ? "none" : tc.by_error_code.map((e) => `${e.code} ${e.count}`).join(" · "),
  );
  add(
    "tokens",
    `prompt ${s.tokens.prompt} · sampled ${s.tokens.sampled} · observation ${s.tokens.observation}`,
  );
  if (s.groups) {
    const g = s.groups;
    add(
      "groups",
      `${g.groups} (size ${g.size.min === g.size.max ? g.size.min : `${g.size.min}–${g.size.max}`})` +
        ` · zero-advantage ${g.zero_advantage}/${g.multi_sample} (${pct(g.zero_advantage, g.multi_sample)})` +
        (g.zero_advantage_by_reward.length
          ? ` [${g.zero_advantage_by_reward
              .slice(0, 3)
              .map((z) => `all ${formatNumber(z.reward)}: ${z.groups}`)
              .join(", ")}]`
          : ""),
    );
  }

  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join("\n");
}

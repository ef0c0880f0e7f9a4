// A finished run's summary.json as the Run view shows it: wall time and throughput, exact match, each
// tool's calls, errors and latency percentiles (computed by the summary), failed calls by error code,
// status reasons, tokens, GRPO groups that give no gradient, and the run's config.
import type { RunSummary } from "./api.ts";
import { fmt } from "./run-curves-panel.tsx";

export function RunSummaryPanel(props: { summary: RunSummary }) {
  const s = props.summary;
  const tc = s.tool_calls;
  return (
    <div class="run-summary">
      <p class="muted">
        {s.started_at ? `started ${s.started_at} · ` : ""}wall time {ms(s.wall_ms)} ·{" "}
        {fmt(s.throughput?.trajectories_per_s ?? null, 2)} trajectories/s · exact match {fmt(s.exact_match)} ·{" "}
        {s.reward.scored} scored, {s.reward.unscored} unscored
      </p>
      <h3>Tool calls</h3>
      {tc.by_tool.length === 0 ? (
        <p class="muted">none</p>
      ) : (
        <table class="tool-calls">
          <thead>
            <tr>
              <th>Tool</th>
              <th>Calls</th>
              <th>Errors</th>
              <th>p50</th>
              <th>p95</th>
              <th>p99</th>
            </tr>
          </thead>
          <tbody>
            {tc.by_tool.map((t) => (
              <tr key={t.name} data-tool={t.name}>
                <td class="mono">{t.name}</td>
                <td class="num">{t.count}</td>
                <td class="num">{t.errors}</td>
                <td class="num">{t.latency_ms ? ms(t.latency_ms.p50) : "–"}</td>
                <td class="num">{t.latency_ms ? ms(t.latency_ms.p95) : "–"}</td>
                <td class="num">{t.latency_ms ? ms(t.latency_ms.p99) : "–"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {tc.by_error_code.length > 0 ? (
        <table class="error-codes">
          <thead>
            <tr>
              <th>Error code</th>
              <th>Calls</th>
            </tr>
          </thead>
          <tbody>
            {tc.by_error_code.map((e) => (
              <tr key={e.code}>
                <td class="error">{e.code}</td>
                <td class="num">{e.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {s.status_reasons.length > 0 ? (
        <>
          <h3>Status reasons</h3>
          <table class="status-reasons">
            <tbody>
              {s.status_reasons.map((r) => (
                <tr key={`${r.status} ${r.reason}`}>
                  <td>{r.status}</td>
                  <td>{r.reason}</td>
                  <td class="num">{r.count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
      <p class="muted">
        tokens: {s.tokens.prompt} prompt, {s.tokens.sampled} sampled, {s.tokens.observation} observation
        {s.groups
          ? ` · groups: ${s.groups.groups}, ${s.groups.zero_advantage} of ${s.groups.multi_sample} with every advantage 0`
          : ""}
      </p>
      {s.config ? (
        <details>
          <summary>Run config</summary>
          <pre>{JSON.stringify(s.config, null, 2)}</pre>
        </details>
      ) : null}
    </div>
  );
}

function ms(x: number): string {
  return x >= 1000 ? `${fmt(x / 1000, 2)} s` : `${fmt(x, 1)} ms`;
}

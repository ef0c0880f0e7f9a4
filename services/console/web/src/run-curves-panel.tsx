// A run's numbers and curves, the same for a run directory, a live run on the rollout service and the
// static report: status breakdown, reward and success rate per batch (GRPO group, in completion
// order), mean reward per sampled turn, and the mean of each reward component.
import type { RunCurves } from "./api.ts";
import { LineChart } from "./line-chart.tsx";

const STATUSES = ["completed", "truncated", "aborted", "failed"];

export function RunCurvesPanel(props: { curves: RunCurves }) {
  const { points, status_counts, turn_reward_mean, reward_components, trajectories } = props.curves;
  const scored = points.filter((p) => p.reward_mean !== null);
  const meanOf = (pick: (p: (typeof points)[number]) => number | null) => {
    let sum = 0;
    let n = 0;
    for (const p of points) {
      const v = pick(p);
      if (v !== null) {
        sum += v * p.scored;
        n += p.scored;
      }
    }
    return n === 0 ? null : sum / n;
  };
  const x = points.map((p) => p.batch);
  return (
    <div class="run-curves">
      <div class="cards">
        <Card value={String(trajectories)} label="trajectories" />
        <Card value={String(points.length)} label="batches (groups)" />
        <Card value={fmt(meanOf((p) => p.reward_mean))} label="reward mean" name="reward-mean" />
        <Card value={fmt(meanOf((p) => p.success_rate))} label="success rate" name="success-rate" />
      </div>
      <StatusBreakdown counts={status_counts} />
      {points.length === 0 ? (
        <p class="muted">No group has completed yet.</p>
      ) : (
        <div class="charts">
          <LineChart
            name="reward"
            title="Reward mean per batch"
            xLabel="batch"
            x={x}
            series={[{ label: "reward mean", values: points.map((p) => p.reward_mean), stroke: "#4c78a8" }]}
          />
          <LineChart
            name="success"
            title="Success rate per batch"
            xLabel="batch"
            x={x}
            yRange={[0, 1]}
            series={[{ label: "success rate", values: points.map((p) => p.success_rate), stroke: "#2a9d5c" }]}
          />
        </div>
      )}
      {scored.length < points.length ? (
        <p class="muted">
          {points.length - scored.length} batches have no scored trajectory (gaps in the curves).
        </p>
      ) : null}
      {turn_reward_mean ? (
        <>
          <h3>Turn rewards (mean per sampled turn)</h3>
          <table class="turn-rewards">
            <thead>
              <tr>
                <th>Sampled turn</th>
                <th>Mean reward</th>
              </tr>
            </thead>
            <tbody>
              {turn_reward_mean.map((m, k) => (
                <tr key={k}>
                  <td class="num">{k + 1}</td>
                  <td class="num">{fmt(m)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
      {Object.keys(reward_components).length > 0 ? (
        <>
          <h3>Reward components (mean)</h3>
          <table class="reward-components">
            <tbody>
              {Object.entries(reward_components).map(([name, mean]) => (
                <tr key={name} data-component={name}>
                  <td class="mono">{name}</td>
                  <td class="num">{fmt(mean)}</td>
                  <td>
                    <span
                      class="bar"
                      style={{ width: `${Math.max(0, Math.min(1, Math.abs(mean))) * 160}px` }}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </div>
  );
}

export function StatusBreakdown(props: { counts: Record<string, number> }) {
  const names = [...STATUSES, ...Object.keys(props.counts).filter((s) => !STATUSES.includes(s))];
  const total = Object.values(props.counts).reduce((a, b) => a + b, 0);
  return (
    <div class="statuses">
      {names
        .filter((s) => (props.counts[s] ?? 0) > 0)
        .map((s) => (
          <span key={s} class={`badge s-${s}`} data-status={s}>
            {s} {props.counts[s]}
            {total > 0 ? ` (${Math.round(((props.counts[s] ?? 0) * 100) / total)}%)` : ""}
          </span>
        ))}
    </div>
  );
}

function Card(props: { value: string; label: string; name?: string }) {
  return (
    <div class="card" data-card={props.name}>
      <b>{props.value}</b>
      <span>{props.label}</span>
    </div>
  );
}

export function fmt(x: number | null, digits = 3): string {
  if (x === null || !Number.isFinite(x)) return "–";
  return String(Number(x.toFixed(digits)));
}

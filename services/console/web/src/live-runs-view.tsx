// Runs in flight on the rollout service (`rlf console --rollout URL`): a table polled every second
// with each request's progress (groups done of tasks), throughput and status breakdown, and a view per
// run whose curves grow as its groups complete.
import type { LiveRun, LiveRunListing } from "./api.ts";
import { Link } from "./router.tsx";
import { RunCurvesPanel, StatusBreakdown } from "./run-curves-panel.tsx";
import { useJson } from "./use-json.ts";

const POLL_MS = 1000;

export function LiveRunsTable() {
  const loaded = useJson<{ rollout: string | null; runs: LiveRunListing[] }>("/api/live-runs", POLL_MS);
  if (loaded.state === "loading") return <p>Loading live runs…</p>;
  if (loaded.state === "error") return <p class="error">{loaded.message}</p>;
  const { rollout, runs } = loaded.data;
  if (rollout === null) {
    return <p class="muted">No rollout service configured (start the console with --rollout URL).</p>;
  }
  return (
    <>
      <p class="muted">
        From the rollout service at <span class="mono">{rollout}</span>
      </p>
      {runs.length === 0 ? <p>No request has reached the rollout service yet.</p> : null}
      {runs.length > 0 ? (
        <table class="live-runs">
          <thead>
            <tr>
              <th>Run</th>
              <th>State</th>
              <th>Progress</th>
              <th>Trajectories</th>
              <th>Traj/s</th>
              <th>Statuses</th>
              <th>Started</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.id} data-live-run={r.id}>
                <td class="mono">
                  <Link href={`/live-runs/${encodeURIComponent(r.id)}`}>{r.id.slice(0, 8)}</Link>
                </td>
                <td class={`state ${r.state}`}>{r.state}</td>
                <td>
                  <Progress done={r.groups} of={r.tasks} />
                </td>
                <td class="num">{r.trajectories}</td>
                <td class="num">{r.trajectories_per_s.toFixed(1)}</td>
                <td>
                  <StatusBreakdown counts={r.status_counts} />
                </td>
                <td>{r.started_at.replace("T", " ").slice(0, 19)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

export function LiveRunView(props: { id: string }) {
  const loaded = useJson<LiveRun>(`/api/live-runs/${encodeURIComponent(props.id)}`, POLL_MS);
  if (loaded.state === "loading") return <p>Loading run…</p>;
  if (loaded.state === "error") return <p class="error">{loaded.message}</p>;
  const r = loaded.data;
  return (
    <section>
      <h2>
        Live run <span class="mono">{r.id}</span> <small class={`state ${r.state}`}>{r.state}</small>
      </h2>
      <p class="muted">
        {r.via} · started {r.started_at} · {(r.elapsed_ms / 1000).toFixed(1)} s ·{" "}
        {r.trajectories_per_s.toFixed(1)} trajectories/s
        {r.policy_version === null ? "" : ` · policy version ${r.policy_version}`}
      </p>
      <Progress done={r.groups} of={r.tasks} />
      <RunCurvesPanel curves={r.curves} />
    </section>
  );
}

export function Progress(props: { done: number; of: number }) {
  const share = props.of > 0 ? props.done / props.of : 0;
  return (
    <span class="progress" data-done={props.done} data-of={props.of}>
      <span class="progress-bar">
        <span style={{ width: `${Math.round(share * 100)}%` }} />
      </span>{" "}
      {props.done}/{props.of} groups
    </span>
  );
}

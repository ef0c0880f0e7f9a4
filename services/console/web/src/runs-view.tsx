// Runs: the rollout service's runs in flight (live-runs-view.tsx), the run directories under the
// console's --runs folder, and one run with its curves (run-curves-panel.tsx) and its trajectories,
// each a link to its Trajectory view. A run directory still being written (no summary.json yet) is
// re-read every two seconds.
import { useEffect, useState } from "preact/hooks";
import type { RunCurves, RunSummary, TrajectoryListing } from "./api.ts";
import { LiveRunsTable } from "./live-runs-view.tsx";
import { Link } from "./router.tsx";
import { RunCurvesPanel } from "./run-curves-panel.tsx";
import { RunSummaryPanel } from "./run-summary-panel.tsx";
import { useJson } from "./use-json.ts";

export function RunsView() {
  const loaded = useJson<{ runs: { id: string; summary: unknown; in_progress?: boolean }[] }>(
    "/api/runs",
    5000,
  );
  return (
    <section>
      <h2>Live runs</h2>
      <LiveRunsTable />
      <h2>Run directories</h2>
      {loaded.state === "loading" ? <p>Loading runs…</p> : null}
      {loaded.state === "error" ? <p class="error">{loaded.message}</p> : null}
      {loaded.state === "ok" && loaded.data.runs.length === 0 ? <p>No run directories yet.</p> : null}
      {loaded.state === "ok" ? (
        <ul class="run-dirs">
          {loaded.data.runs.map((r) => (
            <li key={r.id}>
              <Link href={`/runs/${encodeURIComponent(r.id)}`}>{r.id}</Link>
              {r.in_progress ? <small class="state running"> in progress</small> : null}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/** Rows of the trajectory table drawn at first: a run of 10,000 trajectories opens at once. */
const TABLE_ROWS = 200;

export function RunView(props: { run: string }) {
  const path = `/api/runs/${encodeURIComponent(props.run)}`;
  const [inProgress, setInProgress] = useState(false);
  const loaded = useJson<{
    in_progress?: boolean;
    summary: RunSummary | null;
    trajectories: TrajectoryListing[];
    curves?: RunCurves;
  }>(path, inProgress ? 2000 : undefined);
  const nowInProgress = loaded.state === "ok" && loaded.data.in_progress === true;
  useEffect(() => setInProgress(nowInProgress), [nowInProgress]);
  const [showAll, setShowAll] = useState(false);
  if (loaded.state === "loading") return <p>Loading run…</p>;
  if (loaded.state === "error") return <p class="error">{loaded.message}</p>;
  const all = loaded.data.trajectories;
  return (
    <section>
      <h2>
        Run {props.run}
        {loaded.data.in_progress ? <small class="state running"> in progress</small> : null}
      </h2>
      {loaded.data.curves ? <RunCurvesPanel curves={loaded.data.curves} /> : null}
      {isSummary(loaded.data.summary) ? <RunSummaryPanel summary={loaded.data.summary} /> : null}
      <h3>Trajectories</h3>
      <table class="trajectories">
        <thead>
          <tr>
            <th>#</th>
            <th>Task</th>
            <th>Sample</th>
            <th>Status</th>
            <th>Reward</th>
            <th>Tokens</th>
            <th>Tool calls</th>
          </tr>
        </thead>
        <tbody>
          {(showAll ? all : all.slice(0, TABLE_ROWS)).map((t) => (
            <tr key={t.index}>
              <td>
                <Link href={`/runs/${encodeURIComponent(props.run)}/trajectories/${t.index}`}>{t.index}</Link>
              </td>
              <td class="mono">{t.task_id}</td>
              <td class="num">{t.sample_index}</td>
              <td>{t.status}</td>
              <td class="num">{t.reward ?? "null"}</td>
              <td class="num">{t.response_tokens}</td>
              <td class="num">{t.tool_calls}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!showAll && all.length > TABLE_ROWS ? (
        <button type="button" onClick={() => setShowAll(true)}>
          Show all {all.length} trajectories
        </button>
      ) : null}
    </section>
  );
}

/** A summary.json as `rlf rollout` writes it (the benchmark's and older runs' may hold less). */
function isSummary(s: RunSummary | null): s is RunSummary {
  return s !== null && typeof s === "object" && "tool_calls" in s && "tokens" in s && "reward" in s;
}

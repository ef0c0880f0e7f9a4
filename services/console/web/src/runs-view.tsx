// Runs: the run directories under the console's --runs folder, and one run's trajectories, each a
// link to its Trajectory view.
import type { TrajectoryListing } from "./api.ts";
import { Link } from "./router.tsx";
import { useJson } from "./use-json.ts";

export function RunsView() {
  const loaded = useJson<{ runs: { id: string; summary: unknown }[] }>("/api/runs", 5000);
  if (loaded.state === "loading") return <p>Loading runs…</p>;
  if (loaded.state === "error") return <p class="error">{loaded.message}</p>;
  return (
    <section>
      <h2>Runs</h2>
      {loaded.data.runs.length === 0 ? <p>No run directories yet.</p> : null}
      <ul>
        {loaded.data.runs.map((r) => (
          <li key={r.id}>
            <Link href={`/runs/${encodeURIComponent(r.id)}`}>{r.id}</Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function RunView(props: { run: string }) {
  const loaded = useJson<{ trajectories: TrajectoryListing[] }>(`/api/runs/${encodeURIComponent(props.run)}`);
  if (loaded.state === "loading") return <p>Loading run…</p>;
  if (loaded.state === "error") return <p class="error">{loaded.message}</p>;
  return (
    <section>
      <h2>Run {props.run}</h2>
      <table>
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
          {loaded.data.trajectories.map((t) => (
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
    </section>
  );
}

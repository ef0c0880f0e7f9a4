// Episodes and environments: each environment server's live episodes (refreshed every 2 s) with its
// episode counters, and the environment bundles under --bundles; a bundle's page (/bundles/ID) shows its
// tools, its tasks and its validation report.
import type { BundleDetail, BundleListing, EpisodeServerRow } from "./api.ts";
import { Link } from "./router.tsx";
import { useJson } from "./use-json.ts";

export function EpisodesView() {
  const episodes = useJson<{ servers: EpisodeServerRow[] }>("/api/episodes", 2000);
  const bundles = useJson<{ bundles: BundleListing[] }>("/api/bundles");
  return (
    <section>
      <h2>Episodes</h2>
      {episodes.state === "loading" ? <p>Loading episodes…</p> : null}
      {episodes.state === "error" ? <p class="error">{episodes.message}</p> : null}
      {episodes.state === "ok" ? (
        <table class="episodes">
          <thead>
            <tr>
              <th>Server</th>
              <th>Live</th>
              <th>Started</th>
              <th>Forked</th>
              <th>Ended</th>
              <th>Expired</th>
              <th>Lost</th>
              <th>Live episodes (oldest first)</th>
            </tr>
          </thead>
          <tbody>
            {episodes.data.servers.map((s) => (
              <tr key={s.server} data-server={s.server}>
                <td>{s.server}</td>
                <td class="num live">{s.live}</td>
                <td class="num">{s.counts.started}</td>
                <td class="num">{s.counts.forked}</td>
                <td class="num">{s.counts.ended}</td>
                <td class="num">{s.counts.expired}</td>
                <td class="num">{s.counts.lost}</td>
                <td>
                  {s.episodes.map((e) => (
                    <div key={e.episode_id} class="mono episode-id" title={e.episode_id}>
                      {e.episode_id.slice(0, 20)}… · {Math.round((Date.now() - e.started_ms) / 1000)} s old ·
                      ttl {Math.round(e.ttl_ms / 1000)} s
                    </div>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <h2>Environment bundles</h2>
      {bundles.state === "error" ? <p class="error">{bundles.message}</p> : null}
      {bundles.state === "ok" && bundles.data.bundles.length === 0 ? (
        <p class="muted">No bundles (start the console with --bundles DIR).</p>
      ) : null}
      {bundles.state === "ok" && bundles.data.bundles.length > 0 ? (
        <table class="bundles">
          <thead>
            <tr>
              <th>Bundle</th>
              <th>Form</th>
              <th>Tools</th>
              <th>Tasks</th>
              <th>Validation</th>
              <th>Hash</th>
            </tr>
          </thead>
          <tbody>
            {bundles.data.bundles.map((b) => (
              <tr key={b.id} data-bundle={b.id}>
                <td>
                  <Link href={`/bundles/${encodeURIComponent(b.id)}`}>{b.name ?? b.id}</Link>
                </td>
                <td>{b.form ?? "—"}</td>
                <td class="num">{b.tools}</td>
                <td class="num">{b.tasks}</td>
                <td>{b.error ? <span class="error">{b.error}</span> : validationLine(b.validation)}</td>
                <td class="mono">{b.hash?.slice(0, 19) ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

function validationLine(v: BundleListing["validation"]): string {
  if (!v) return "no validation report";
  return `${v.passed}/${v.checked} passed · ${v.repaired} repaired · ${v.dropped} dropped`;
}

interface ToolReport {
  name: string;
  task: string;
  distractor: boolean;
  status: string;
  reason?: string;
}

export function BundleView(props: { id: string }) {
  const loaded = useJson<BundleDetail>(`/api/bundles/${encodeURIComponent(props.id)}`);
  if (loaded.state === "loading") return <p>Loading bundle…</p>;
  if (loaded.state === "error") return <p class="error">{loaded.message}</p>;
  const b = loaded.data;
  const report = b.validation_report as { tools?: ToolReport[] } | null;
  const byTool = new Map((report?.tools ?? []).map((t) => [t.name, t]));
  return (
    <section>
      <h2>
        <Link href="/episodes">Environments</Link> / bundle {b.name ?? b.id}
      </h2>
      {b.error ? (
        <p class="error" data-testid="bundle-error">
          {b.error}
        </p>
      ) : null}
      <dl class="facts">
        <dt>form</dt>
        <dd>{b.form}</dd>
        <dt>hash</dt>
        <dd class="mono">{b.error ? "not verified" : `${b.hash} (verified)`}</dd>
        <dt>source</dt>
        <dd class="mono">{JSON.stringify(b.source)}</dd>
        <dt>validation</dt>
        <dd data-testid="bundle-validation">{validationLine(b.validation)}</dd>
      </dl>
      <h3>Tools ({b.tools})</h3>
      <table class="bundle-tools">
        <thead>
          <tr>
            <th>Tool</th>
            <th>Parameters</th>
            <th>Validation</th>
            <th>Description</th>
          </tr>
        </thead>
        <tbody>
          {b.tool_list.map((t) => {
            const r = byTool.get(t.name);
            return (
              <tr key={t.name} data-bundle-tool={t.name}>
                <td class="mono">{t.name}</td>
                <td class="mono">
                  {Object.keys((t.parameters as { properties?: object }).properties ?? {}).join(", ")}
                </td>
                <td>
                  {r
                    ? `${r.status}${r.reason ? ` (${r.reason})` : ""}${r.distractor ? " · distractor" : ""}`
                    : "—"}
                </td>
                <td class="desc">{t.description}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <h3>Tasks ({b.tasks})</h3>
      <table class="bundle-tasks">
        <thead>
          <tr>
            <th>Task</th>
            <th>Question</th>
            <th>Tools</th>
          </tr>
        </thead>
        <tbody>
          {b.task_list.map((t) => (
            <tr key={t.id} data-bundle-task={t.id}>
              <td class="mono">{t.id}</td>
              <td class="desc">{t.question ?? t.instruction ?? ""}</td>
              <td class="mono">{(t.tools ?? []).join(", ")}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

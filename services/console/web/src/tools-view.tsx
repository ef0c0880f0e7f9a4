// Tools: each upstream server's health, breaker, calls, errors and latency p50/p99, then the gateway's
// merged catalog with each tool's own, refreshed every few seconds. A tool's name opens its page
// (the playground).
import type { ServerRow, ToolRow } from "./api.ts";
import { Link } from "./router.tsx";
import { useJson } from "./use-json.ts";

export function ToolsView() {
  const loaded = useJson<{ gateway_status: string; tools: ToolRow[]; servers?: ServerRow[] }>(
    "/api/tools",
    3000,
  );
  if (loaded.state === "loading") return <p>Loading tools…</p>;
  if (loaded.state === "error") return <p class="error">{loaded.message}</p>;
  const { gateway_status, tools, servers } = loaded.data;
  return (
    <section>
      <h2>
        Tools <small data-testid="gateway-status">gateway {gateway_status}</small>
      </h2>
      <table class="servers">
        <thead>
          <tr>
            <th>Server</th>
            <th>Health</th>
            <th>Breaker</th>
            <th>Calls</th>
            <th>Errors</th>
            <th>p50 ms</th>
            <th>p99 ms</th>
          </tr>
        </thead>
        <tbody>
          {(servers ?? []).map((s) => (
            <tr key={s.server} data-server={s.server}>
              <td>{s.server}</td>
              <td class={`health ${s.health}`}>{s.health}</td>
              <td class={`breaker ${s.breaker}`}>{s.breaker}</td>
              <td class="num">{s.calls}</td>
              <td class="num">{s.errors}</td>
              <td class="num">{ms(s.latency_p50_ms)}</td>
              <td class="num">{ms(s.latency_p99_ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Catalog</h3>
      <table class="tools">
        <thead>
          <tr>
            <th>Tool</th>
            <th>Server</th>
            <th>Health</th>
            <th>Breaker</th>
            <th>Calls</th>
            <th>Errors</th>
            <th>p50 ms</th>
            <th>p99 ms</th>
            <th>Description</th>
          </tr>
        </thead>
        <tbody>
          {tools.map((t) => (
            <tr key={t.name} data-tool={t.name}>
              <td class="mono">
                <Link href={`/tools/${encodeURIComponent(t.name)}`}>{t.name}</Link>
              </td>
              <td>{t.server}</td>
              <td class={`health ${t.health}`}>{t.health}</td>
              <td class={`breaker ${t.breaker}`}>{t.breaker}</td>
              <td class="num">{t.calls}</td>
              <td class="num">{t.errors}</td>
              <td class="num">{ms(t.latency_p50_ms)}</td>
              <td class="num">{ms(t.latency_p99_ms)}</td>
              <td class="desc">{t.description}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function ms(v: number | null): string {
  return v === null ? "—" : v < 10 ? v.toFixed(2) : v.toFixed(0);
}

// Tools: each upstream server's health, breaker, calls, errors and latency p50/p99, then the gateway's
// merged catalog with each tool's own, refreshed every few seconds. A tool's name opens its page
// (the playground). Both tables are one StatsTable: each its own leading (and trailing) columns.
import { Fragment, type JSX } from "preact";
import type { CallStats, ServerRow, ToolRow } from "./api.ts";
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
      <StatsTable
        class="servers"
        rows={servers ?? []}
        attribute="data-server"
        id={(s) => s.server}
        before={[{ head: "Server", cell: (s) => <td>{s.server}</td> }]}
      />
      <h3>Catalog</h3>
      <StatsTable
        class="tools"
        rows={tools}
        attribute="data-tool"
        id={(t) => t.name}
        before={[
          {
            head: "Tool",
            cell: (t) => (
              <td class="mono">
                <Link href={`/tools/${encodeURIComponent(t.name)}`}>{t.name}</Link>
              </td>
            ),
          },
          { head: "Server", cell: (t) => <td>{t.server}</td> },
        ]}
        after={[{ head: "Description", cell: (t) => <td class="desc">{t.description}</td> }]}
      />
    </section>
  );
}

interface Column<R> {
  head: string;
  cell: (row: R) => JSX.Element;
}

const STATS: Column<CallStats>[] = [
  { head: "Health", cell: (r) => <td class={`health ${r.health}`}>{r.health}</td> },
  { head: "Breaker", cell: (r) => <td class={`breaker ${r.breaker}`}>{r.breaker}</td> },
  { head: "Calls", cell: (r) => <td class="num">{r.calls}</td> },
  { head: "Errors", cell: (r) => <td class="num">{r.errors}</td> },
  { head: "p50 ms", cell: (r) => <td class="num">{ms(r.latency_p50_ms)}</td> },
  { head: "p99 ms", cell: (r) => <td class="num">{ms(r.latency_p99_ms)}</td> },
];

/** A table of servers or tools: their own columns before and after the stats columns. */
function StatsTable<R extends CallStats>(props: {
  class: string;
  rows: readonly R[];
  /** The row's attribute that names it (the browser tests find rows by it), and its value. */
  attribute: `data-${string}`;
  id: (row: R) => string;
  before: Column<R>[];
  after?: Column<R>[];
}) {
  const columns: Column<R>[] = [...props.before, ...STATS, ...(props.after ?? [])];
  return (
    <table class={props.class}>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c.head}>{c.head}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((r) => (
          <tr key={props.id(r)} {...{ [props.attribute]: props.id(r) }}>
            {columns.map((c) => (
              <Fragment key={c.head}>{c.cell(r)}</Fragment>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ms(v: number | null): string {
  return v === null ? "—" : v < 10 ? v.toFixed(2) : v.toFixed(0);
}

// Traces: a trajectory's tool calls as a timeline (Gantt), one bar per call on one time axis. The
// server reads the spans from Jaeger when the console has --jaeger and the trajectory its trace id;
// else it lays the record's latencies out turn by turn (tool-call-timeline.ts says how).
import type { TraceTimeline } from "./api.ts";
import { Link } from "./router.tsx";
import { useJson } from "./use-json.ts";

export function TracesView(props: { run: string; index: string }) {
  const base = `/runs/${encodeURIComponent(props.run)}/trajectories/${encodeURIComponent(props.index)}`;
  const loaded = useJson<TraceTimeline>(`/api${base}/trace`);
  if (loaded.state === "loading") return <p>Loading the timeline…</p>;
  if (loaded.state === "error") return <p class="error">{loaded.message}</p>;
  const tl = loaded.data;
  const end = Math.max(1, ...tl.bars.map((b) => b.start_ms + b.duration_ms));
  const ticks = niceTicks(end);
  return (
    <section>
      <h2>
        Tool calls of <Link href={base}>trajectory {props.index}</Link> of run {props.run}
      </h2>
      <p data-testid="timeline-source">
        {tl.source === "jaeger" ? (
          <>
            from Jaeger, trace{" "}
            <a href={tl.trace_url} target="_blank" rel="noreferrer" class="mono">
              {tl.trace_id}
            </a>
          </>
        ) : (
          "from the record's latencies: calls of one turn start together, turns follow each other (generation time not shown)"
        )}
      </p>
      {tl.jaeger_error ? <p class="error">Jaeger: {tl.jaeger_error}</p> : null}
      {tl.bars.length === 0 ? <p>No tool calls.</p> : null}
      <div class="gantt" data-testid="gantt">
        <div class="gantt-row">
          <span />
          <span class="gantt-axis">
            {ticks.map((t) => (
              <span key={t} style={{ left: `${(t / end) * 100}%` }}>
                {t} ms
              </span>
            ))}
          </span>
          <span />
        </div>
        {tl.bars.map((b, i) => (
          <div class="gantt-row" key={i}>
            <span class="gantt-label mono" title={b.name}>
              {b.turn === null ? "" : `turn ${b.turn} · `}
              {b.name}
            </span>
            <span class="gantt-track">
              <span
                class={`bar ${b.error ? "failed" : ""}`}
                data-bar={i}
                data-name={b.name}
                style={{
                  left: `${(b.start_ms / end) * 100}%`,
                  width: `max(2px, ${(b.duration_ms / end) * 100}%)`,
                }}
                title={`${b.name}: ${b.duration_ms.toFixed(1)} ms from ${b.start_ms.toFixed(1)} ms${b.error ? ` · ${b.error}` : ""}`}
              />
            </span>
            <span class="num">{b.duration_ms.toFixed(1)} ms</span>
          </div>
        ))}
      </div>
    </section>
  );
}

/** About five round tick positions from 0 to end. */
function niceTicks(end: number): number[] {
  const raw = end / 5;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let t = 0; t <= end; t += step) out.push(Number(t.toPrecision(6)));
  return out;
}

// One tool's page (/tools/NAME): its server's health, breaker and the tool's calls, errors and latency
// p50/p99 (live, as on the Tools view), and the playground: a form generated from its input schema,
// a call through the gateway (POST /api/tools/NAME/call) showing the result, the latency and the
// call's trace; optionally inside an episode of the tool's server (start, call, end).
import { useState } from "preact/hooks";
import { type PlaygroundAnswer, sendJson, type ToolRow } from "./api.ts";
import { Link } from "./router.tsx";
import { argumentsFrom, fieldsOf, SchemaForm } from "./schema-form.tsx";
import { useJson } from "./use-json.ts";

export function ToolView(props: { name: string }) {
  const loaded = useJson<{ gateway_status: string; tools: ToolRow[] }>("/api/tools", 3000);
  if (loaded.state === "loading") return <p>Loading tool…</p>;
  if (loaded.state === "error") return <p class="error">{loaded.message}</p>;
  const tool = loaded.data.tools.find((t) => t.name === props.name);
  if (!tool) return <p class="error">The gateway has no tool {props.name}.</p>;
  return (
    <section>
      <h2>
        <Link href="/tools">Tools</Link> / <span class="mono">{tool.name}</span>
      </h2>
      <p class="desc">{tool.description}</p>
      <dl class="facts" data-testid="tool-stats">
        <dt>server</dt>
        <dd>{tool.server}</dd>
        <dt>health</dt>
        <dd class={`health ${tool.health}`}>{tool.health}</dd>
        <dt>breaker</dt>
        <dd class={`breaker ${tool.breaker}`}>{tool.breaker}</dd>
        <dt>calls</dt>
        <dd data-testid="tool-calls">{tool.calls}</dd>
        <dt>errors</dt>
        <dd>{tool.errors}</dd>
        <dt>p50 / p99</dt>
        <dd>
          {ms(tool.latency_p50_ms)} / {ms(tool.latency_p99_ms)} ms
        </dd>
      </dl>
      <Playground key={tool.name} tool={tool} />
    </section>
  );
}

function Playground(props: { tool: ToolRow }) {
  const fields = fieldsOf(props.tool.input_schema);
  const [values, setValues] = useState<Record<string, string>>({});
  const [answer, setAnswer] = useState<PlaygroundAnswer | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [episode, setEpisode] = useState<string | null>(null);
  const [episodeConfig, setEpisodeConfig] = useState("{}");
  const [episodeNote, setEpisodeNote] = useState<string | null>(null);

  const call = async () => {
    setProblem(null);
    let args: Record<string, unknown>;
    try {
      args = argumentsFrom(fields, values);
    } catch (err) {
      setProblem((err as Error).message);
      return;
    }
    setBusy(true);
    try {
      const res = await sendJson<PlaygroundAnswer & { error?: { message: string } }>(
        "POST",
        `/api/tools/${encodeURIComponent(props.tool.name)}/call`,
        { arguments: args, ...(episode ? { episode_id: episode } : {}) },
      );
      if (res.status !== 200) setProblem(res.body.error?.message ?? `HTTP ${res.status}`);
      else setAnswer(res.body);
    } finally {
      setBusy(false);
    }
  };

  const startEpisode = async () => {
    let config: unknown;
    try {
      config = JSON.parse(episodeConfig);
    } catch {
      setEpisodeNote("config: not JSON");
      return;
    }
    const res = await sendJson<{ episode_id?: string; error?: { code: string; message: string } }>(
      "POST",
      "/api/episodes",
      { server: props.tool.server, config },
    );
    if (res.body.episode_id) {
      setEpisode(res.body.episode_id);
      setEpisodeNote(null);
    } else setEpisodeNote(`${res.body.error?.code ?? res.status}: ${res.body.error?.message ?? ""}`);
  };

  const endEpisode = async () => {
    if (!episode) return;
    const res = await sendJson<{ state?: unknown; error?: { code: string; message: string } }>(
      "DELETE",
      `/api/episodes/${encodeURIComponent(episode)}`,
    );
    setEpisode(null);
    setEpisodeNote(
      res.status === 200
        ? `ended; final state ${JSON.stringify(res.body.state)}`
        : `${res.body.error?.code}: ${res.body.error?.message}`,
    );
  };

  const r = answer?.result;
  const text = r?.content?.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n") ?? "";
  const code = r?.error?.code ?? (r?.error_code && r.error_code !== "OK" ? r.error_code : null);
  return (
    <div class="playground" data-testid="playground">
      <h3>Playground</h3>
      <SchemaForm fields={fields} onValues={setValues} />
      <div class="episode" data-testid="episode">
        {episode ? (
          <>
            in episode{" "}
            <span class="mono" data-testid="episode-id">
              {episode.slice(0, 24)}…
            </span>{" "}
            <button type="button" onClick={endEpisode}>
              End episode
            </button>
          </>
        ) : (
          <>
            <label>
              episode config{" "}
              <input
                class="mono"
                value={episodeConfig}
                onInput={(e) => setEpisodeConfig(e.currentTarget.value)}
              />
            </label>{" "}
            <button type="button" onClick={startEpisode}>
              Start an episode on {props.tool.server}
            </button>
          </>
        )}
        {episodeNote ? (
          <span class="muted" data-testid="episode-note">
            {" "}
            {episodeNote}
          </span>
        ) : null}
      </div>
      <button type="button" data-testid="call" disabled={busy} onClick={call}>
        {busy ? "Calling…" : "Call"}
      </button>
      {problem ? <p class="error">{problem}</p> : null}
      {answer ? (
        <div class={`call ${code || r?.is_error ? "failed" : ""}`} data-testid="call-result">
          <div>
            HTTP {answer.status} ·{" "}
            <span data-testid="call-latency">
              {answer.latency_ms === null ? "—" : `${answer.latency_ms.toFixed(1)} ms`}
            </span>{" "}
            at the gateway ({answer.round_trip_ms.toFixed(1)} ms round trip)
            {code ? ` · ${code}` : ""}
            {r?.is_error ? " · tool error" : ""} ·{" "}
            {answer.trace_url ? (
              <a href={answer.trace_url} target="_blank" rel="noreferrer" class="trace-link">
                trace {answer.trace_id.slice(0, 8)}… (Jaeger)
              </a>
            ) : (
              <span class="mono" title="start the console with --jaeger URL for a link">
                trace {answer.trace_id}
              </span>
            )}
          </div>
          <pre data-testid="call-output">
            {text || r?.error?.message || r?.error_message || JSON.stringify(r?.structured_content ?? r)}
          </pre>
        </div>
      ) : null}
    </div>
  );
}

function ms(v: number | null): string {
  return v === null ? "—" : v < 10 ? v.toFixed(2) : v.toFixed(0);
}

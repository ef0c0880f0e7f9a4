// Trajectory: the prompt and each turn with every token shown, coloured by loss mask (trained or
// not) and shaded by logprob; hovering a token shows its id, text and logprob. Tool calls sit after
// the sampled turn that made them.
import { useEffect, useRef, useState } from "preact/hooks";
import type { TokenTexts, ToolCall, Trajectory } from "./api.ts";
import { useJson } from "./use-json.ts";

interface Hovered {
  position: string;
  id: number;
  text: string | null;
  mask: 0 | 1 | null;
  logprob: number | null;
}

export function TrajectoryView(props: { run: string; index: string }) {
  const loaded = useJson<{
    trajectory: Trajectory;
    token_texts: TokenTexts | null;
    token_texts_error: string | null;
  }>(`/api/runs/${encodeURIComponent(props.run)}/trajectories/${encodeURIComponent(props.index)}`);
  const [hovered, setHovered] = useState<Hovered | null>(null);
  // One listener for every token (data attributes carry what the panel shows): 32k tokens, one handler.
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const onOver = (e: Event) => {
      const d = (e.target as HTMLElement).dataset;
      if (d.id === undefined) return;
      setHovered({
        position: d.pos ?? "",
        id: Number(d.id),
        text: d.text ?? null,
        mask: d.mask === undefined ? null : d.mask === "1" ? 1 : 0,
        logprob: d.lp === undefined ? null : Number(d.lp),
      });
    };
    el.addEventListener("mouseover", onOver);
    return () => el.removeEventListener("mouseover", onOver);
  });
  if (loaded.state === "loading") return <p>Loading trajectory…</p>;
  if (loaded.state === "error") return <p class="error">{loaded.message}</p>;
  const t = loaded.data.trajectory;
  const texts = loaded.data.token_texts;
  return (
    <section ref={ref}>
      <h2>
        Trajectory {props.index} of run {props.run}
      </h2>
      <dl class="facts">
        <dt>task</dt>
        <dd class="mono">{t.task_id}</dd>
        <dt>sample</dt>
        <dd>{t.sample_index}</dd>
        <dt>status</dt>
        <dd>
          {t.status}
          {t.status_reason ? ` (${t.status_reason})` : ""}
        </dd>
        <dt>reward</dt>
        <dd>{t.reward ?? "null"}</dd>
        <dt>advantage</dt>
        <dd>{t.advantage ?? "—"}</dd>
        {Object.entries(t.reward_components).map(([k, v]) => (
          <>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </>
        ))}
      </dl>
      <p class="legend">
        <span class="tok mask-1">trained (loss mask 1)</span> <span class="tok mask-0">not trained (0)</span>{" "}
        <span class="tok prompt">prompt</span> — darker: lower logprob
      </p>
      {loaded.data.token_texts_error ? (
        <p class="error">token texts: {loaded.data.token_texts_error}</p>
      ) : null}
      <div class="hover" data-testid="token-info">
        {hovered
          ? `token ${hovered.position} · id ${hovered.id} · text ${hovered.text === null ? "—" : JSON.stringify(hovered.text)} · logprob ${
              hovered.logprob === null ? "—" : hovered.logprob.toFixed(4)
            } · mask ${hovered.mask ?? "prompt"}`
          : "hover a token"}
      </div>
      <div class="turn">
        <h3>prompt ({t.prompt_ids.length} tokens)</h3>
        <div class="tokens">
          {t.prompt_ids.map((id, i) => (
            <span
              key={i}
              class="tok prompt"
              title={`prompt ${i} · id ${id}`}
              data-id={id}
              data-pos={`prompt ${i}`}
              data-text={texts?.prompt[i]}
            >
              {shown(texts?.prompt[i], id)}
            </span>
          ))}
        </div>
      </div>
      {t.turns.map((turn, ti) => (
        <div class="turn" key={ti} data-turn={ti}>
          <h3>
            turn {ti}: {turn.kind} ({turn.end - turn.start} tokens)
            {t.turn_rewards ? ` · turn reward ${t.turn_rewards[ti]}` : ""}
          </h3>
          <div class="tokens">
            {t.response_ids.slice(turn.start, turn.end).map((id, k) => {
              const i = turn.start + k;
              const mask = t.loss_mask[i] ?? 0;
              const lp = t.rollout_logprobs[i] ?? 0;
              return (
                <span
                  key={i}
                  class={`tok mask-${mask}`}
                  data-index={i}
                  data-id={id}
                  data-pos={`response ${i}`}
                  data-text={texts?.response[i]}
                  data-mask={mask}
                  data-lp={lp}
                  style={mask === 1 ? { "--shade": String(Math.min(1, -lp / 5)) } : undefined}
                  title={`response ${i} · id ${id} · logprob ${lp.toFixed(4)} · mask ${mask}`}
                >
                  {shown(texts?.response[i], id)}
                </span>
              );
            })}
          </div>
          {t.tool_calls
            .filter((c) => c.turn === ti)
            .map((c, ci) => (
              <ToolCallBox key={ci} call={c} />
            ))}
        </div>
      ))}
      {t.tool_calls.some((c) => c.turn === undefined) ? (
        <div class="turn">
          <h3>tool calls</h3>
          {t.tool_calls
            .filter((c) => c.turn === undefined)
            .map((c, ci) => (
              <ToolCallBox key={ci} call={c} />
            ))}
        </div>
      ) : null}
    </section>
  );
}

/** A token's text with its whitespace visible (the id when no tokenizer could be loaded). */
function shown(text: string | undefined, id: number): string {
  if (text === undefined) return String(id);
  return text.replace(/\n/g, "↵").replace(/\t/g, "→") || "∅";
}

function ToolCallBox(props: { call: ToolCall }) {
  const c = props.call;
  return (
    <div class={`call ${c.error_code ? "failed" : ""}`} data-call={c.name}>
      <div>
        <b class="mono">{c.name}</b> {JSON.stringify(c.arguments)} · {c.latency_ms.toFixed(1)} ms
        {c.error_code ? ` · ${c.error_code}` : ""}
      </div>
      <pre>{c.result}</pre>
    </div>
  );
}

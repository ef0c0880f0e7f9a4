// Trajectory: the prompt and each turn with every token shown, coloured by loss mask (trained or
// not) and shaded by logprob; hovering a token shows its id, text and logprob. Beside each turn its
// per-turn reward; under a sampled turn the tool calls it made (arguments, result, latency, error code,
// trace link). Above: the reward components and the GRPO group's siblings with their advantages;
// below: the environment's snapshots and the diff between consecutive ones. Long trajectories render
// a turn's tokens only when it comes near the viewport (lazy-tokens.tsx). A tool-result image shown to
// the model sits at its placeholder tokens; one it was not shown is a note under its turn
// (trajectory-image.tsx).
import { Fragment } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type {
  SnapshotView,
  TokenTexts,
  ToolCall,
  TraceLink,
  Trajectory,
  TrajectoryImage,
  TrajectoryListing,
} from "./api.ts";
import { LazyTokens } from "./lazy-tokens.tsx";
import { Link } from "./router.tsx";
import { ImageNote, ImageSpan } from "./trajectory-image.tsx";
import { useJson } from "./use-json.ts";

type Hovered = TokenHover | { image: string };

interface TokenHover {
  position: string;
  id: number;
  text: string | null;
  mask: 0 | 1 | null;
  logprob: number | null;
}

/** Above this many tokens, a turn's tokens are rendered when it nears the viewport. */
const EAGER_TOKENS = 4096;

export function TrajectoryView(props: { run: string; index: string }) {
  const loaded = useJson<{
    trajectory: Trajectory;
    token_texts: TokenTexts | null;
    token_texts_error: string | null;
    siblings: TrajectoryListing[];
    environment: { server: string; snapshots: SnapshotView[] } | null;
    trace: TraceLink;
  }>(`/api/runs/${encodeURIComponent(props.run)}/trajectories/${encodeURIComponent(props.index)}`);
  const [hovered, setHovered] = useState<Hovered | null>(null);
  // One listener for every token (data attributes carry what the panel shows): 32k tokens, one handler.
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const onOver = (e: Event) => {
      const target = e.target as HTMLElement;
      const image = target.closest<HTMLElement>("[data-image-label]")?.dataset.imageLabel;
      if (image !== undefined) return setHovered({ image });
      const d = target.dataset;
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
  const { trajectory: t, token_texts: texts, siblings, environment, trace } = loaded.data;
  const eager = t.prompt_ids.length + t.response_ids.length <= EAGER_TOKENS;
  const images = t.images ?? [];
  // Shown images by their first placeholder token; the others by their observation turn.
  const spanAt = new Map<number, TrajectoryImage>();
  const padded = new Uint8Array(t.response_ids.length);
  for (const image of images) {
    if (image.start === undefined || image.end === undefined) continue;
    spanAt.set(image.start, image);
    padded.fill(1, image.start, image.end);
  }
  return (
    <section ref={ref}>
      <h2>
        Trajectory {props.index} of run{" "}
        <Link href={`/runs/${encodeURIComponent(props.run)}`}>{props.run}</Link>
      </h2>
      <dl class="facts">
        <dt>task</dt>
        <dd class="mono">{t.task_id}</dd>
        <dt>group</dt>
        <dd class="mono">{t.group_id}</dd>
        <dt>sample</dt>
        <dd>{t.sample_index}</dd>
        <dt>status</dt>
        <dd>
          {t.status}
          {t.status_reason ? ` (${t.status_reason})` : ""}
        </dd>
        <dt>reward</dt>
        <dd data-testid="reward">{t.reward ?? "null"}</dd>
        <dt>advantage</dt>
        <dd>{t.advantage ?? "—"}</dd>
        <dt>trace</dt>
        <dd>
          <TraceAnchor trace={trace} />
        </dd>
      </dl>
      <RewardComponents components={t.reward_components} />
      <Siblings run={props.run} current={Number(props.index)} rows={siblings} />
      <p class="legend">
        <span class="tok mask-1">trained (loss mask 1)</span> <span class="tok mask-0">not trained (0)</span>{" "}
        <span class="tok prompt">prompt</span> — darker: lower logprob
      </p>
      {loaded.data.token_texts_error ? (
        <p class="error">token texts: {loaded.data.token_texts_error}</p>
      ) : null}
      <div class="hover" data-testid="token-info">
        {hovered && "image" in hovered
          ? hovered.image
          : hovered
            ? `token ${hovered.position} · id ${hovered.id} · text ${hovered.text === null ? "—" : JSON.stringify(hovered.text)} · logprob ${
                hovered.logprob === null ? "—" : hovered.logprob.toFixed(4)
              } · mask ${hovered.mask ?? "prompt"}`
            : "hover a token"}
      </div>
      <div class="turn">
        <h3>prompt ({t.prompt_ids.length} tokens)</h3>
        <LazyTokens eager={eager} count={t.prompt_ids.length}>
          {() =>
            t.prompt_ids.map((id, i) => (
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
            ))
          }
        </LazyTokens>
      </div>
      {t.turns.map((turn, ti) => (
        <div class="turn scored" key={ti} data-turn={ti}>
          <div>
            <h3>
              turn {ti}: {turn.kind} ({turn.end - turn.start} tokens)
            </h3>
            <LazyTokens eager={eager} count={turn.end - turn.start}>
              {() =>
                t.response_ids.slice(turn.start, turn.end).map((id, k) => {
                  const i = turn.start + k;
                  const mask = t.loss_mask[i] ?? 0;
                  const lp = t.rollout_logprobs[i] ?? 0;
                  const image = spanAt.get(i);
                  const token = (
                    <span
                      key={i}
                      class={`tok mask-${mask}${padded[i] ? " image-pad" : ""}`}
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
                  return image === undefined ? (
                    token
                  ) : (
                    <Fragment key={i}>
                      <ImageSpan run={props.run} image={image} />
                      {token}
                    </Fragment>
                  );
                })
              }
            </LazyTokens>
            {images
              .filter((image) => image.turn === ti && image.start === undefined)
              .map((image, k) => (
                <ImageNote key={k} run={props.run} image={image} />
              ))}
            {t.tool_calls
              .filter((c) => c.turn === ti)
              .map((c, ci) => (
                <ToolCallBox key={ci} call={c} trace={trace} />
              ))}
          </div>
          <aside class="turn-reward" data-testid="turn-reward" data-reward-turn={ti}>
            {t.turn_rewards ? (
              <>
                <small>turn reward</small>
                <b>{fmt(t.turn_rewards[ti] ?? null)}</b>
              </>
            ) : null}
          </aside>
        </div>
      ))}
      {t.tool_calls.some((c) => c.turn === undefined) ? (
        <div class="turn">
          <h3>tool calls</h3>
          {t.tool_calls
            .filter((c) => c.turn === undefined)
            .map((c, ci) => (
              <ToolCallBox key={ci} call={c} trace={trace} />
            ))}
        </div>
      ) : null}
      {environment ? <Snapshots server={environment.server} snapshots={environment.snapshots} /> : null}
    </section>
  );
}

/** A token's text with its whitespace visible (the id when no tokenizer could be loaded). */
function shown(text: string | undefined, id: number): string {
  if (text === undefined) return String(id);
  return text.replace(/\n/g, "↵").replace(/\t/g, "→") || "∅";
}

function fmt(v: number | null | undefined): string {
  if (v === null || v === undefined) return "—";
  return Number.isInteger(v) ? String(v) : v.toFixed(4);
}

function TraceAnchor(props: { trace: TraceLink }) {
  const { url, trace_id } = props.trace;
  const label = trace_id ? `trace ${trace_id.slice(0, 8)}…` : "tool-call timeline";
  return url.startsWith("/") ? (
    <Link href={url} class="trace-link">
      {label}
    </Link>
  ) : (
    <a href={url} class="trace-link" target="_blank" rel="noreferrer">
      {label} (Jaeger)
    </a>
  );
}

function RewardComponents(props: { components: Record<string, number> }) {
  const entries = Object.entries(props.components);
  if (entries.length === 0) return null;
  return (
    <table class="components" data-testid="reward-components">
      <thead>
        <tr>
          <th>reward component</th>
          <th>value</th>
        </tr>
      </thead>
      <tbody>
        {entries.map(([k, v]) => (
          <tr key={k} data-component={k}>
            <td class="mono">{k}</td>
            <td class="num">{fmt(v)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Siblings(props: { run: string; current: number; rows: TrajectoryListing[] }) {
  return (
    <div class="siblings" data-testid="siblings">
      {props.rows.map((r) => (
        <div
          key={r.index}
          class={`sibling ${r.index === props.current ? "current" : ""}`}
          data-sibling={r.index}
        >
          <Link href={`/runs/${encodeURIComponent(props.run)}/trajectories/${r.index}`}>
            sample {r.sample_index}
          </Link>
          <div>
            reward <b class="reward">{fmt(r.reward)}</b>
          </div>
          <div>
            advantage <b class="advantage">{fmt(r.advantage)}</b>
          </div>
          <small>
            {r.status} · {r.turns} turns · {r.tool_calls} calls · {r.response_tokens} tokens
          </small>
        </div>
      ))}
    </div>
  );
}

function ToolCallBox(props: { call: ToolCall; trace: TraceLink }) {
  const c = props.call;
  return (
    <div class={`call ${c.error_code ? "failed" : ""}`} data-call={c.name}>
      <div>
        <b class="mono">{c.name}</b> <span class="mono args">{JSON.stringify(c.arguments)}</span> ·{" "}
        <span class="latency">{c.latency_ms.toFixed(1)} ms</span>
        {c.error_code ? (
          <>
            {" "}
            · <span class="error-code">{c.error_code}</span>
          </>
        ) : null}{" "}
        · <TraceAnchor trace={props.trace} />
      </div>
      <pre>{c.result}</pre>
    </div>
  );
}

function Snapshots(props: { server: string; snapshots: SnapshotView[] }) {
  return (
    <div class="snapshots" data-testid="snapshots">
      <h3>environment {props.server}: snapshots</h3>
      {props.snapshots.map((s, i) => (
        <div key={i} class="snapshot" data-snapshot={i}>
          <h4>
            after user turn {s.user_turn}
            {s.final ? " (final)" : ""} · stored as {s.form}
            {s.bytes !== undefined ? ` · ${s.bytes} bytes` : ""}
          </h4>
          <div class="snapshot-body">
            {s.form === "state" ? <pre>{JSON.stringify(s.state, null, 2)}</pre> : null}
            {s.form === "diff" ? (
              <PatchList title="diff from the initial state" ops={s.diff_from_initial ?? []} />
            ) : null}
            {i > 0 ? (
              s.diff_from_previous ? (
                <PatchList title="diff from the previous snapshot" ops={s.diff_from_previous} />
              ) : (
                <p class="muted">no diff from the previous snapshot (one of them is not stored whole)</p>
              )
            ) : null}
          </div>
        </div>
      ))}
    </div>
  );
}

function PatchList(props: {
  title: string;
  ops: { op: string; path: string; value?: unknown; from?: string }[];
}) {
  return (
    <div class="patch">
      <small>{props.title}</small>
      {props.ops.length === 0 ? <p class="muted">no change</p> : null}
      <ul>
        {props.ops.map((o, i) => (
          <li key={i} class={`op ${o.op}`}>
            <span class="mono">
              {o.op} {o.path || "/"}
              {o.from !== undefined ? ` from ${o.from}` : ""}
              {o.value !== undefined ? ` = ${JSON.stringify(o.value)}` : ""}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

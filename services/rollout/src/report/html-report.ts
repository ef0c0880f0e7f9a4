// The HTML report of a rollout: ONE self-contained file (inline CSS, inline SVG charts, no script, no
// font, no external resource) with the headline numbers, reward / turn / tool-latency charts, status
// and error tables and a capped set of example trajectories. Every user-provided string is escaped.
import type { Trajectory } from "@rlfactory/contracts";
import { clip, escapeHtml } from "./escape-html.ts";
import { type Bin, integerBins, linearBins, logBins } from "./histogram.ts";
import type { RolloutSummary } from "./summary.ts";
import { sampledTurnCount } from "./summary.ts";
import { formatDuration, formatNumber, formatPercent } from "./summary-text.ts";
import { renderBarChart } from "./svg-bar-chart.ts";

export interface HtmlReportOptions {
  /** Page title and heading (default "Rollout report"). */
  title?: string;
  /** Example trajectories to show (default 6, at most 50). */
  maxExamples?: number;
  /** Turns ids into text, to show each example's final sampled turn (e.g. the tokenizer's decode). */
  decode?: (ids: readonly number[]) => string;
}

const DEFAULT_EXAMPLES = 6;
const MAX_EXAMPLES = 50;
/** Tools that get their own latency chart (the busiest); the table lists all. */
const MAX_TOOL_CHARTS = 12;
const MAX_CALLS_PER_EXAMPLE = 12;
const MAX_TURNS_PER_EXAMPLE = 40;
const MAX_RESULT_CHARS = 400;
const MAX_ARGS_CHARS = 200;
const MAX_ANSWER_CHARS = 1500;
const MAX_CONFIG_CHARS = 8000;

const CSS = `
body{font:14px/1.45 system-ui,sans-serif;color:#1d2330;background:#fafbfc;margin:0 auto;max-width:1180px;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d9dee7;padding-bottom:4px}
h3{font-size:14px;margin:14px 0 4px}.sub{color:#5b6474;margin:0 0 16px}
.cards{display:flex;flex-wrap:wrap;gap:10px}.card{background:#fff;border:1px solid #d9dee7;border-radius:6px;padding:8px 12px;min-width:120px}
.card b{display:block;font-size:20px}.card span{color:#5b6474;font-size:12px}
table{border-collapse:collapse;background:#fff;margin:6px 0}th,td{border:1px solid #d9dee7;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#eef1f5}td.n{text-align:right;font-variant-numeric:tabular-nums}
.charts{display:flex;flex-wrap:wrap;gap:12px}figure{margin:0;background:#fff;border:1px solid #d9dee7;border-radius:6px;padding:6px}
figcaption{font-weight:600;font-size:13px;margin:0 0 2px 4px}
svg.chart .bar{fill:#4c78a8}svg.chart .bar:hover{fill:#2f5684}svg.chart .axis{stroke:#1d2330}
svg.chart .grid{stroke:#e4e8ee}svg.chart text{font-size:10px;fill:#1d2330}svg.chart .axis-label{font-size:11px;fill:#5b6474}
svg.chart .marker{stroke:#d1495b;stroke-dasharray:4 3;stroke-width:1.5}svg.chart .marker-label{fill:#d1495b;font-weight:600}
.example{background:#fff;border:1px solid #d9dee7;border-radius:6px;padding:8px 12px;margin:10px 0}
.badge{display:inline-block;border-radius:3px;padding:0 6px;font-size:12px;background:#eef1f5;margin-right:4px}
.s-completed{background:#dff0d8}.s-truncated{background:#fcf3cf}.s-aborted{background:#f6dcc4}.s-failed{background:#f5c6cb}
.err{color:#a4161a}pre{white-space:pre-wrap;word-break:break-word;background:#f4f6f9;padding:6px;margin:4px 0;font-size:12px}
.muted{color:#5b6474}
`;

const fmt = (x: number | null, digits = 3) => escapeHtml(formatNumber(x, digits));
const pct = formatPercent;

function table(head: readonly string[], rows: readonly (readonly string[])[], numeric: ReadonlySet<number>) {
  if (rows.length === 0) return `<p class="muted">none</p>`;
  const th = head.map((h) => `<th>${escapeHtml(h)}</th>`).join("");
  const body = rows
    .map((r) => `<tr>${r.map((c, i) => `<td${numeric.has(i) ? ' class="n"' : ""}>${c}</td>`).join("")}</tr>`)
    .join("\n");
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

function figure(caption: string, svg: string): string {
  return `<figure><figcaption>${escapeHtml(caption)}</figcaption>\n${svg}\n</figure>`;
}

function card(value: string, label: string): string {
  return `<div class="card"><b>${value}</b><span>${escapeHtml(label)}</span></div>`;
}

const rangeLabel = (b: Bin, digits = 2) =>
  b.lo === b.hi ? formatNumber(b.lo, digits) : `${formatNumber(b.lo, digits)}–${formatNumber(b.hi, digits)}`;

function headline(s: RolloutSummary): string {
  const tc = s.tool_calls;
  return `<div class="cards">
${card(String(s.trajectories), "trajectories")}
${card(fmt(s.reward.mean), `reward mean (${s.reward.scored} scored)`)}
${card(fmt(s.exact_match), "exact match")}
${card(fmt(s.turns?.mean ?? null, 2), "sampled turns / trajectory")}
${card(`${tc.total}`, `tool calls (${formatNumber(tc.per_trajectory_mean, 2)}/traj)`)}
${card(escapeHtml(pct(tc.errors, tc.total)), `tool errors (${tc.errors})`)}
${card(fmt(s.throughput.sampled_tokens_per_s, 1), "sampled tokens/s")}
${card(fmt(s.throughput.trajectories_per_s, 2), "trajectories/s")}
${s.groups ? card(`${s.groups.zero_advantage}/${s.groups.multi_sample}`, "zero-advantage groups") : ""}
</div>`;
}

function statusSection(s: RolloutSummary): string {
  const rows = (["completed", "truncated", "aborted", "failed"] as const).map((k) => [
    `<span class="badge s-${k}">${k}</span>`,
    String(s.status[k]),
    escapeHtml(pct(s.status[k], s.trajectories)),
  ]);
  const reasons = s.status_reasons.map((r) => [escapeHtml(r.status), escapeHtml(r.reason), String(r.count)]);
  return `<h2>Statuses</h2>
${table(["status", "trajectories", "share"], rows, new Set([1, 2]))}
<h3>Top status reasons</h3>
${table(["status", "reason", "count"], reasons, new Set([2]))}`;
}

function rewardSection(trajectories: readonly Trajectory[], s: RolloutSummary): string {
  const rewards = trajectories.flatMap((t) => (t.reward === null ? [] : [t.reward]));
  const bins = linearBins(rewards, 10);
  const chart =
    bins.length === 0
      ? `<p class="muted">no scored trajectories</p>`
      : figure(
          "Reward histogram",
          renderBarChart({
            title: `Histogram of rewards over ${rewards.length} scored trajectories`,
            xLabel: "reward",
            yLabel: "trajectories",
            bins,
            binLabel: (b) => rangeLabel(b),
            barTitle: (b) => `reward ${rangeLabel(b, 4)}: ${b.count} trajectories`,
            markers:
              s.reward.mean === null
                ? []
                : [{ value: s.reward.mean, label: `mean ${formatNumber(s.reward.mean)}` }],
          }),
        );
  const components = Object.entries(s.reward_components).map(([name, c]) => [
    escapeHtml(name),
    fmt(c.mean),
    String(c.count),
  ]);
  const r = s.reward;
  return `<h2>Reward</h2>
<p>mean ${fmt(r.mean)} · std ${fmt(r.std)} (population) · min ${fmt(r.min)} · max ${fmt(r.max)} · scored ${r.scored}, unscored ${r.unscored}</p>
<div class="charts">${chart}</div>
<h3>Reward components (mean)</h3>
${table(["component", "mean", "trajectories"], components, new Set([1, 2]))}`;
}

function turnsSection(trajectories: readonly Trajectory[], s: RolloutSummary): string {
  const counts = trajectories.map(sampledTurnCount);
  const bins = integerBins(counts);
  const label = (b: Bin) => (b.hi - b.lo === 1 ? String(b.lo) : `${b.lo}–${b.hi - 1}`);
  const chart =
    bins.length === 0
      ? `<p class="muted">no trajectories</p>`
      : figure(
          "Sampled turns per trajectory",
          renderBarChart({
            title: `Sampled turns per trajectory over ${counts.length} trajectories`,
            xLabel: "sampled turns",
            yLabel: "trajectories",
            bins,
            binLabel: label,
            barTitle: (b) => `${label(b)} sampled turns: ${b.count} trajectories`,
          }),
        );
  const t = s.turns;
  return `<h2>Turns</h2>
<p>${t ? `mean ${fmt(t.mean, 2)} · p50 ${t.p50} · max ${t.max}` : "–"} (sampled turns per trajectory)</p>
<div class="charts">${chart}</div>
${turnRewardsSection(s)}`;
}

function turnRewardsSection(s: RolloutSummary): string {
  if (s.turn_rewards === null) return "";
  const rows = s.turn_rewards.map((t) => [String(t.turn), fmt(t.mean), String(t.count)]);
  return `<h3>Turn rewards (mean per sampled turn)</h3>
<p class="muted">the K-th sampled turn's <code>turn_rewards</code> entry (process rewards + weight × per-turn components), over the trajectories that reached it</p>
${table(["sampled turn", "mean turn reward", "trajectories"], rows, new Set([0, 1, 2]))}`;
}

function toolsSection(trajectories: readonly Trajectory[], s: RolloutSummary): string {
  const tc = s.tool_calls;
  const rows = tc.by_tool.map((t) => {
    const l = t.latency_ms;
    const d = (x: number | undefined) => (x === undefined ? "–" : escapeHtml(formatDuration(x)));
    return [
      escapeHtml(t.name),
      String(t.count),
      String(t.errors),
      escapeHtml(pct(t.errors, t.count)),
      d(l?.p50),
      d(l?.p95),
      d(l?.p99),
      d(l?.max),
    ];
  });
  const latencies = new Map<string, number[]>();
  for (const t of trajectories) {
    for (const c of t.tool_calls) {
      const list = latencies.get(c.name) ?? [];
      list.push(c.latency_ms);
      latencies.set(c.name, list);
    }
  }
  const charts = tc.by_tool.slice(0, MAX_TOOL_CHARTS).map((t) => {
    const values = latencies.get(t.name) ?? [];
    const l = t.latency_ms;
    return figure(
      `Latency of ${t.name}`,
      renderBarChart({
        title: `Latency histogram of tool ${t.name} over ${values.length} calls (log-scale bins)`,
        xLabel: "latency (ms, 1-2-5 log bins)",
        yLabel: "calls",
        bins: logBins(values),
        binLabel: (b) => `${formatNumber(b.lo)}–${formatNumber(b.hi)}`,
        edgeLabel: (edge) => formatNumber(edge),
        barTitle: (b) => `${formatNumber(b.lo)}–${formatNumber(b.hi)} ms: ${b.count} calls`,
        markers: l
          ? [
              { value: l.p50, label: `p50 ${formatDuration(l.p50)}` },
              { value: l.p95, label: `p95 ${formatDuration(l.p95)}` },
            ]
          : [],
        scale: "log",
      }),
    );
  });
  const more =
    tc.by_tool.length > MAX_TOOL_CHARTS
      ? `<p class="muted">latency charts for the ${MAX_TOOL_CHARTS} busiest of ${tc.by_tool.length} tools</p>`
      : "";
  return `<h2>Tools</h2>
<p>${tc.total} calls · ${fmt(tc.per_trajectory_mean, 2)} per trajectory · ${tc.errors} errors (${escapeHtml(pct(tc.errors, tc.total))}) · percentiles are nearest-rank over all calls, errors included</p>
${table(["tool", "calls", "errors", "error rate", "p50", "p95", "p99", "max"], rows, new Set([1, 2, 3, 4, 5, 6, 7]))}
<div class="charts">${charts.join("\n")}</div>${more}`;
}

function errorsSection(s: RolloutSummary): string {
  const tool = s.tool_calls.by_error_code.map((e) => [
    `<span class="err">${escapeHtml(e.code)}</span>`,
    String(e.count),
    escapeHtml(pct(e.count, s.tool_calls.total)),
  ]);
  const reward = s.reward_errors.by_code.map((e) => [
    escapeHtml(e.component),
    `<span class="err">${escapeHtml(e.code)}</span>`,
    String(e.count),
  ]);
  return `<h2>Errors by code</h2>
<h3>Tool calls</h3>
${table(["error code", "calls", "share of calls"], tool, new Set([1, 2]))}
<h3>Reward (infrastructure failures while scoring)</h3>
${table(["component", "code", "trajectories"], reward, new Set([2]))}`;
}

function tokensSection(s: RolloutSummary): string {
  const tk = s.tokens;
  const rows = [
    ["prompt", String(tk.prompt)],
    ["sampled (loss mask 1)", String(tk.sampled)],
    ["observation (loss mask 0)", String(tk.observation)],
  ];
  const timings = Object.entries(s.timings_ms).map(([name, t]) => [
    escapeHtml(name),
    escapeHtml(formatDuration(t.mean)),
    escapeHtml(formatDuration(t.p50)),
    escapeHtml(formatDuration(t.p95)),
    escapeHtml(formatDuration(t.max)),
  ]);
  return `<h2>Tokens and timings</h2>
${table(["tokens", "count"], rows, new Set([1]))}
<h3>Timings per trajectory</h3>
${table(["phase", "mean", "p50", "p95", "max"], timings, new Set([1, 2, 3, 4]))}`;
}

function groupsSection(s: RolloutSummary): string {
  const g = s.groups;
  if (!g) return "";
  const zero = g.zero_advantage_by_reward.map((z) => [fmt(z.reward), String(z.groups)]);
  return `<h2>GRPO groups</h2>
<p>${g.groups} groups (size ${g.size.min}–${g.size.max}, mean ${fmt(g.size.mean, 2)}) · ${g.zero_advantage} of ${g.multi_sample} multi-sample groups have all-equal rewards (${escapeHtml(pct(g.zero_advantage, g.multi_sample))}): their advantages are 0 and they give no gradient · groups with an unscored trajectory: ${g.with_unscored}</p>
${table(["shared reward", "zero-advantage groups"], zero, new Set([0, 1]))}`;
}

/**
 * A handful of informative trajectories: the first of each status (failures first), the first with a
 * tool error and with a reward error, the best and worst scored, then the rest in input order.
 */
export function pickExamples(
  trajectories: readonly Trajectory[],
  max: number,
): { trajectory: Trajectory; why: string }[] {
  const picked = new Map<number, string>();
  const take = (i: number, why: string) => {
    if (i >= 0 && picked.size < max && !picked.has(i)) picked.set(i, why);
  };
  for (const st of ["failed", "aborted", "truncated", "completed"] as const) {
    take(
      trajectories.findIndex((t) => t.status === st),
      `first ${st}`,
    );
  }
  take(
    trajectories.findIndex((t) => t.tool_calls.some((c) => c.error_code !== null)),
    "tool error",
  );
  take(
    trajectories.findIndex((t) => t.reward_error),
    "reward error",
  );
  let best = -1;
  let worst = -1;
  trajectories.forEach((t, i) => {
    if (t.reward === null) return;
    if (best < 0 || t.reward > trajectories[best]!.reward!) best = i;
    if (worst < 0 || t.reward < trajectories[worst]!.reward!) worst = i;
  });
  take(best, "highest reward");
  take(worst, "lowest reward");
  for (let i = 0; i < trajectories.length && picked.size < max; i++) take(i, "in order");
  return [...picked].map(([i, why]) => ({ trajectory: trajectories[i]!, why }));
}

function renderArguments(args: unknown): string {
  let text: string;
  try {
    text = typeof args === "string" ? args : (JSON.stringify(args) ?? String(args));
  } catch {
    text = String(args);
  }
  return escapeHtml(clip(text, MAX_ARGS_CHARS));
}

/** Each turn of a trajectory with per-turn rewards: its kind, tokens, the calls it made and its reward. */
function turnTable(t: Trajectory): string {
  const rewards = t.turn_rewards;
  if (rewards === undefined) return "";
  let sampled = 0;
  const rows = t.turns.slice(0, MAX_TURNS_PER_EXAMPLE).map((turn, i) => {
    const label = turn.kind === "sampled" ? `sampled ${++sampled}` : "observation";
    const calls = t.tool_calls.filter((c) => c.turn === i).map((c) => escapeHtml(c.name));
    return [String(i), label, String(turn.end - turn.start), calls.join(", "), fmt(rewards[i] ?? 0)];
  });
  const more =
    t.turns.length > MAX_TURNS_PER_EXAMPLE
      ? `<p class="muted">… ${t.turns.length - MAX_TURNS_PER_EXAMPLE} more turns</p>`
      : "";
  return `<h3>Turns and their rewards</h3>
${table(["turn", "kind", "tokens", "tool calls", "turn reward"], rows, new Set([0, 2, 4]))}${more}`;
}

function exampleHtml(t: Trajectory, why: string, decode: HtmlReportOptions["decode"]): string {
  const components = Object.entries(t.reward_components)
    .map(([k, v]) => `${escapeHtml(k)} ${fmt(v)}`)
    .join(" · ");
  const calls = t.tool_calls
    .slice(0, MAX_CALLS_PER_EXAMPLE)
    .map((c) => [
      escapeHtml(c.name),
      `<code>${renderArguments(c.arguments)}</code>`,
      escapeHtml(formatDuration(c.latency_ms)),
      c.error_code === null ? "ok" : `<span class="err">${escapeHtml(c.error_code)}</span>`,
      `<pre>${escapeHtml(clip(c.result, MAX_RESULT_CHARS))}</pre>`,
    ]);
  const moreCalls =
    t.tool_calls.length > MAX_CALLS_PER_EXAMPLE
      ? `<p class="muted">… ${t.tool_calls.length - MAX_CALLS_PER_EXAMPLE} more tool calls</p>`
      : "";
  let answer = "";
  const last = t.turns.findLast((turn) => turn.kind === "sampled");
  if (decode && last) {
    let text: string;
    try {
      text = decode(t.response_ids.slice(last.start, last.end));
    } catch (e) {
      text = `(decode failed: ${(e as Error).message})`;
    }
    answer = `<h3>Final sampled turn</h3><pre>${escapeHtml(clip(text, MAX_ANSWER_CHARS))}</pre>`;
  }
  const rewardError = t.reward_error
    ? `<p class="err">reward error: ${escapeHtml(t.reward_error.component)}/${escapeHtml(t.reward_error.code)}: ${escapeHtml(clip(t.reward_error.message, MAX_RESULT_CHARS))}</p>`
    : "";
  return `<article class="example">
<p><span class="badge">${escapeHtml(why)}</span><b>${escapeHtml(t.task_id)}</b> <span class="muted">group ${escapeHtml(t.group_id)} #${t.sample_index}</span>
<span class="badge s-${t.status}">${t.status}</span>${t.status_reason === null ? "" : ` ${escapeHtml(t.status_reason)}`}</p>
<p>reward ${fmt(t.reward)}${components ? ` (${components})` : ""}${t.advantage == null ? "" : ` · advantage ${fmt(t.advantage)}`} · ${sampledTurnCount(t)} sampled turns · ${t.prompt_ids.length} prompt + ${t.response_ids.length} response tokens</p>
${rewardError}${turnTable(t)}
${t.tool_calls.length ? table(["tool", "arguments", "latency", "error", "result"], calls, new Set([2])) : `<p class="muted">no tool calls</p>`}${moreCalls}
${answer}
</article>`;
}

function configSection(s: RolloutSummary): string {
  if (s.config === null) return "";
  let text: string;
  try {
    text = JSON.stringify(s.config, null, 2);
  } catch {
    text = "(config is not JSON-serialisable)";
  }
  return `<details><summary>Run config</summary><pre>${escapeHtml(clip(text, MAX_CONFIG_CHARS))}</pre></details>`;
}

export function renderHtmlReport(
  trajectories: readonly Trajectory[],
  summary: RolloutSummary,
  options: HtmlReportOptions = {},
): string {
  const title = escapeHtml(options.title ?? "Rollout report");
  const maxExamples = Math.max(
    0,
    Math.min(MAX_EXAMPLES, Math.floor(options.maxExamples ?? DEFAULT_EXAMPLES)),
  );
  const examples = pickExamples(trajectories, maxExamples);
  const sub = [
    summary.started_at === null ? null : `started ${escapeHtml(summary.started_at)}`,
    `wall time ${escapeHtml(formatDuration(summary.wall_ms))}`,
    `${summary.trajectories} trajectories`,
  ]
    .filter((x) => x !== null)
    .join(" · ");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${CSS}</style>
</head>
<body>
<h1>${title}</h1>
<p class="sub">${sub}</p>
${headline(summary)}
${statusSection(summary)}
${rewardSection(trajectories, summary)}
${turnsSection(trajectories, summary)}
${toolsSection(trajectories, summary)}
${errorsSection(summary)}
${tokensSection(summary)}
${groupsSection(summary)}
<h2>Example trajectories</h2>
<p class="muted">${examples.length} of ${trajectories.length}</p>
${examples.map((e) => exampleHtml(e.trajectory, e.why, options.decode)).join("\n")}
${configSection(summary)}
</body>
</html>
`;
}

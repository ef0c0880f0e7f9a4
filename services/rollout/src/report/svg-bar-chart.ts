// An inline SVG bar chart of binned counts (no script, no external resource): one <rect class="bar">
// per non-empty bin with an accessible <title>, the count above it, bin labels and both axis labels,
// and optional vertical markers (p50, p95) placed inside their bin on a linear or log scale.
import { escapeHtml } from "./escape-html.ts";
import type { Bin } from "./histogram.ts";

export interface ChartMarker {
  value: number;
  label: string;
}

export interface BarChartSpec {
  /** Accessible name of the chart (its <title> and aria-label). */
  title: string;
  xLabel: string;
  yLabel: string;
  bins: readonly Bin[];
  /** Tick label under a bin (centred); unused when `edgeLabel` is given. */
  binLabel: (bin: Bin) => string;
  /** Labels the bin edges instead of the bins (for log-scale bins): called with each edge value. */
  edgeLabel?: (edge: number) => string;
  /** Tooltip / accessible text of a bar. */
  barTitle: (bin: Bin) => string;
  markers?: readonly ChartMarker[];
  /** How a marker's value is placed inside its bin (default linear). */
  scale?: "linear" | "log";
}

const W = 560;
const H = 250;
const M = { left: 52, right: 14, top: 40, bottom: 52 };
/** Marker labels sit in rows above the plot, one row per marker, clear of the bar counts. */
const MARKER_ROW = 12;
const PW = W - M.left - M.right;
const PH = H - M.top - M.bottom;
/** At most this many bin labels on the x axis; the rest are skipped evenly. */
const MAX_TICK_LABELS = 12;

const num = (x: number) => String(Math.round(x * 10) / 10);

function markerX(bins: readonly Bin[], value: number, scale: "linear" | "log"): number {
  const bw = PW / bins.length;
  let i = bins.findIndex((b) => value >= b.lo && value < b.hi);
  if (i < 0) i = value < bins[0]!.lo ? 0 : bins.length - 1;
  const b = bins[i]!;
  let frac = 0.5;
  if (b.hi > b.lo) {
    frac =
      scale === "log" && b.lo > 0 && value > 0
        ? Math.log(value / b.lo) / Math.log(b.hi / b.lo)
        : (value - b.lo) / (b.hi - b.lo);
  }
  return M.left + (i + Math.min(1, Math.max(0, frac))) * bw;
}

const tick = (x: number, text: string) =>
  `<text class="tick" x="${num(x)}" y="${M.top + PH + 13}" text-anchor="middle">${escapeHtml(text)}</text>`;

export function renderBarChart(spec: BarChartSpec): string {
  const { bins } = spec;
  const title = escapeHtml(spec.title);
  const out: string[] = [
    `<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${title}">`,
    `<title>${title}</title>`,
  ];
  const maxCount = bins.reduce((m, b) => Math.max(m, b.count), 0);
  const bw = bins.length > 0 ? PW / bins.length : PW;
  const y = (c: number) => M.top + PH - (maxCount === 0 ? 0 : (c / maxCount) * PH);

  // Axes and y ticks (0, the middle when it is a whole count, the maximum).
  out.push(
    `<line class="axis" x1="${M.left}" y1="${M.top + PH}" x2="${M.left + PW}" y2="${M.top + PH}"/>`,
    `<line class="axis" x1="${M.left}" y1="${M.top}" x2="${M.left}" y2="${M.top + PH}"/>`,
  );
  const ticks = [...new Set([0, maxCount % 2 === 0 ? maxCount / 2 : 0, maxCount])];
  for (const t of ticks) {
    out.push(
      `<text class="tick" x="${M.left - 6}" y="${num(y(t) + 3)}" text-anchor="end">${t}</text>`,
      `<line class="grid" x1="${M.left}" y1="${num(y(t))}" x2="${M.left + PW}" y2="${num(y(t))}"/>`,
    );
  }

  // Bars: only non-empty bins get one, each with its count above it.
  const labelEvery = Math.max(1, Math.ceil(bins.length / MAX_TICK_LABELS));
  bins.forEach((b, i) => {
    const x = M.left + i * bw;
    if (b.count > 0) {
      const top = y(b.count);
      out.push(
        `<rect class="bar" x="${num(x + bw * 0.08)}" y="${num(top)}" width="${num(bw * 0.84)}" height="${num(M.top + PH - top)}"><title>${escapeHtml(spec.barTitle(b))}</title></rect>`,
        `<text class="count" x="${num(x + bw / 2)}" y="${num(top - 3)}" text-anchor="middle">${b.count}</text>`,
      );
    }
    if (i % labelEvery === 0) {
      const [at, text] = spec.edgeLabel ? [x, spec.edgeLabel(b.lo)] : [x + bw / 2, spec.binLabel(b)];
      out.push(tick(at, text));
    }
  });
  const last = bins[bins.length - 1];
  if (spec.edgeLabel && last && bins.length % labelEvery === 0)
    out.push(tick(M.left + PW, spec.edgeLabel(last.hi)));

  if (bins.length > 0) {
    (spec.markers ?? []).forEach((m, k) => {
      const x = markerX(bins, m.value, spec.scale ?? "linear");
      const label = escapeHtml(m.label);
      // Label to the right of its line, or to the left in the right third (so it is not cut off).
      const right = x < M.left + (2 * PW) / 3;
      out.push(
        `<line class="marker" x1="${num(x)}" y1="${M.top - 12 - MARKER_ROW * k}" x2="${num(x)}" y2="${M.top + PH}"><title>${label}</title></line>`,
        `<text class="marker-label" x="${num(x)}" y="${M.top - 14 - MARKER_ROW * k}" dx="${right ? 3 : -3}" text-anchor="${right ? "start" : "end"}">${label}</text>`,
      );
    });
  }

  out.push(
    `<text class="axis-label" x="${M.left + PW / 2}" y="${H - 10}" text-anchor="middle">${escapeHtml(spec.xLabel)}</text>`,
    `<text class="axis-label" transform="translate(14 ${M.top + PH / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(spec.yLabel)}</text>`,
    "</svg>",
  );
  return out.join("\n");
}

// The rollout report: the run summary (JSON), its terminal table, and the self-contained HTML report.
export * from "./escape-html.ts";
export * from "./histogram.ts";
export * from "./html-report.ts";
export * from "./percentile.ts";
export * from "./summary.ts";
export * from "./summary-text.ts";
export * from "./svg-bar-chart.ts";

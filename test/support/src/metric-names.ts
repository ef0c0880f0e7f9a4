// Metric names, as a scrape shows them and as a document names them: for tests that hold a service's
// /metrics output and its docs to the same names.
import { readFileSync } from "node:fs";

/** The metric names of a Prometheus scrape, from its `# TYPE` lines (histograms by their base name). */
export function scrapedMetricNames(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1] as string);
}

/** Every complete metric name starting with `prefix` that a Markdown (or YAML) file names in backticks. */
export function documentedMetricNames(file: string | URL, prefix: string): string[] {
  const text = readFileSync(file, "utf8");
  const names = [...text.matchAll(/`([a-z_][a-z0-9_]*)`/g)].map((m) => m[1] as string);
  return [...new Set(names.filter((n) => n.startsWith(prefix) && !n.endsWith("_")))];
}

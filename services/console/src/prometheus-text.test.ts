import { describe, expect, it } from "vitest";
import { histogramQuantile, parsePrometheusText } from "./prometheus-text.ts";

describe("the gateway's metrics text", () => {
  it("reads samples with their labels, escaped quotes included", () => {
    const samples = parsePrometheusText(
      [
        "# HELP rlf_gateway_calls_total Tool calls",
        "# TYPE rlf_gateway_calls_total counter",
        'rlf_gateway_calls_total{server="s",tool="a \\"b\\"",outcome="ok"} 3',
        'rlf_gateway_call_duration_seconds_bucket{le="+Inf",server="s"} 7',
        "rlf_gateway_process_cpu_seconds_total 1.5",
      ].join("\n"),
    );
    expect(samples).toEqual([
      { name: "rlf_gateway_calls_total", labels: { server: "s", tool: 'a "b"', outcome: "ok" }, value: 3 },
      { name: "rlf_gateway_call_duration_seconds_bucket", labels: { le: "+Inf", server: "s" }, value: 7 },
      { name: "rlf_gateway_process_cpu_seconds_total", labels: {}, value: 1.5 },
    ]);
  });

  it("estimates quantiles within a bucket, as PromQL's histogram_quantile does", () => {
    // 10 observations: 4 ≤ 0.01 s, 8 ≤ 0.1 s, all ≤ 1 s
    const buckets: [number, number][] = [
      [0.01, 4],
      [0.1, 8],
      [1, 10],
      [Number.POSITIVE_INFINITY, 10],
    ];
    expect(histogramQuantile(0.5, buckets)).toBeCloseTo(0.01 + 0.09 * (1 / 4), 9);
    expect(histogramQuantile(0.99, buckets)).toBeCloseTo(0.1 + 0.9 * (1.9 / 2), 9);
    expect(histogramQuantile(0.5, [[0.1, 0]])).toBeNull();
    // past the last finite bound: that bound
    expect(
      histogramQuantile(0.99, [
        [0.1, 1],
        [Number.POSITIVE_INFINITY, 5],
      ]),
    ).toBe(0.1);
  });
});

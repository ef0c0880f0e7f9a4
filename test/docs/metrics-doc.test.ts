// The metrics tables of docs/gateway.md and services/judge/README.md name exactly the metrics the
// services export (process and Node.js runtime metrics aside, which the docs describe in one line).
import { createJudgeMetrics } from "@rlfactory/judge";
import { type InProcessGateway, startTestGateway } from "@rlfactory/test-support/gateway-harness";
import { codeSpans, markdownTable, readDoc } from "@rlfactory/test-support/markdown";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** Metric names in a Prometheus text exposition (`# TYPE name kind`), runtime metrics left out. */
function exposedNames(text: string, prefix: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) /gm)]
    .map((m) => m[1]!)
    .filter((n) => n.startsWith(prefix) && !/process|nodejs/.test(n))
    .sort();
}

/** Metric names in a doc table's first column. */
function documentedNames(doc: string, firstHeader: string, prefix: string): string[] {
  return markdownTable(readDoc(doc), firstHeader)
    .flatMap((row) => codeSpans(row[firstHeader]!))
    .filter((n) => n.startsWith(prefix))
    .sort();
}

describe("metrics tables", () => {
  let gw: InProcessGateway;
  beforeAll(async () => {
    gw = await startTestGateway({});
  });
  afterAll(() => gw?.stop());

  it("docs/gateway.md names every gateway metric", async () => {
    const text = await (await fetch(`${gw.gateway.adminUrl}/metrics`)).text();
    const exposed = exposedNames(text, "rlf_gateway_");
    expect(exposed.length).toBeGreaterThanOrEqual(10);
    expect(documentedNames("docs/gateway.md", "metric", "rlf_gateway_")).toEqual(exposed);
  });

  it("services/judge/README.md names every judge metric", async () => {
    const exposed = exposedNames(await createJudgeMetrics().registry.metrics(), "rlf_judge_");
    expect(exposed.length).toBeGreaterThanOrEqual(7);
    expect(documentedNames("services/judge/README.md", "Metric", "rlf_judge_")).toEqual(exposed);
  });
});

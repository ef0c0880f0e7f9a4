// A small HTTP server that speaks the one route of Jaeger's query API the console reads:
// GET /api/traces/{id} → {data: [{traceID, spans, processes}], errors: null}, 404 for another id.
// It records the paths asked for, so a test can see the console went to Jaeger.
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface JaegerFixtureSpan {
  spanID: string;
  operationName: string;
  /** Microseconds since the epoch. */
  startTime: number;
  /** Microseconds. */
  duration: number;
  tags: { key: string; type: string; value: unknown }[];
}

export interface JaegerQueryFixture {
  url: string;
  requested: string[];
  close(): Promise<void>;
}

export async function startJaegerQueryFixture(
  traces: Record<string, JaegerFixtureSpan[]>,
): Promise<JaegerQueryFixture> {
  const requested: string[] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    requested.push(path);
    const id = /^\/api\/traces\/([0-9a-f]+)$/.exec(path)?.[1];
    const spans = id === undefined ? undefined : traces[id];
    res.setHeader("content-type", "application/json");
    if (id === undefined || spans === undefined) {
      res.statusCode = 404;
      res.end(JSON.stringify({ data: null, errors: [{ code: 404, msg: "trace not found" }] }));
      return;
    }
    const data = [
      {
        traceID: id,
        spans: spans.map((s) => ({ traceID: id, processID: "p1", references: [], ...s })),
        processes: { p1: { serviceName: "rlfactory-gateway", tags: [] } },
      },
    ];
    res.end(JSON.stringify({ data, total: 0, limit: 0, offset: 0, errors: null }));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requested,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

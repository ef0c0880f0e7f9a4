// A client of Jaeger's query API (`--jaeger URL`, the UI's base: the API is under /api): one trace's
// spans by its id (GET /api/traces/{id}), checked with zod at this boundary.
import { z } from "zod";

const tag = z.object({ key: z.string(), value: z.unknown() });
const span = z.object({
  spanID: z.string(),
  operationName: z.string(),
  /** Microseconds since the epoch. */
  startTime: z.number(),
  /** Microseconds. */
  duration: z.number(),
  tags: z.array(tag).optional().default([]),
});
const traceBody = z.object({
  data: z.array(z.object({ traceID: z.string(), spans: z.array(span) })),
});

export type JaegerSpan = z.infer<typeof span>;

export class JaegerError extends Error {
  override name = "JaegerError";
}

export class JaegerClient {
  readonly #base: string;

  constructor(baseUrl: string) {
    this.#base = baseUrl.replace(/\/+$/, "");
  }

  /** The trace's spans; throws JaegerError when Jaeger cannot be reached or has no such trace. */
  async traceSpans(traceId: string, signal?: AbortSignal): Promise<JaegerSpan[]> {
    let res: Response;
    try {
      res = await fetch(`${this.#base}/api/traces/${encodeURIComponent(traceId)}`, signal ? { signal } : {});
    } catch (err) {
      throw new JaegerError(`Jaeger at ${this.#base} unreachable: ${(err as Error).message}`);
    }
    if (res.status !== 200) throw new JaegerError(`Jaeger answered ${res.status} for trace ${traceId}`);
    const parsed = traceBody.safeParse(await res.json().catch(() => null));
    if (!parsed.success) throw new JaegerError(`Jaeger's answer for trace ${traceId} is not a trace`);
    const found = parsed.data.data.find((t) => t.traceID === traceId) ?? parsed.data.data[0];
    if (found === undefined) throw new JaegerError(`Jaeger has no trace ${traceId}`);
    return found.spans;
  }
}

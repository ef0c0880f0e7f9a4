// The judge service on the network: HTTP JSON (http-server.ts) and gRPC (grpc-server.ts) in front of
// one judge service (judge-service.ts), sharing one request path (`Judgments.run`): a SERVER span
// continuing the caller's trace, zod validation, the service call, and one `Judgment` event for the
// metrics and logs. Stopping the servers does not close the service: its owner does.
import { type Context, context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { type Logger, pino } from "pino";
import { z } from "zod";
import { startJudgeGrpcServer } from "./grpc-server.ts";
import { buildJudgeHttpServer } from "./http-server.ts";
import { type JudgeOutcome, type JudgeRequest, judgeRequestSchema } from "./judge-types.ts";
import { createJudgeMetrics, type JudgeMetrics, type Judgment } from "./metrics.ts";

/** What the servers need of the judge service (createJudgeService's result fits). */
export interface JudgeServiceHandle {
  judge(request: JudgeRequest, opts?: { signal?: AbortSignal }): Promise<JudgeOutcome>;
  close(): Promise<void>;
}

export interface JudgeServerOptions {
  httpHost: string;
  httpPort: number;
  grpcHost: string;
  grpcPort: number;
  log: Logger;
  /** Largest HTTP body / gRPC message accepted (default 16 MiB: a group of long trajectories). */
  maxMessageBytes?: number;
}

export interface JudgeServer {
  /** e.g. http://127.0.0.1:7005 */
  httpUrl: string;
  /** e.g. 127.0.0.1:50053 */
  grpcAddress: string;
  metrics: JudgeMetrics;
  /** Stops both servers (requests in flight finish first); the service stays open. */
  close(): Promise<void>;
}

export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** One request through the service, whichever transport it came by. */
export interface Judgments {
  run(
    body: unknown,
    opts: { transport: Judgment["transport"]; spanName: string; parent: Context; signal: AbortSignal },
  ): Promise<JudgeOutcome>;
}

const tracer = trace.getTracer("rlfactory-judge");

/** The service's logger: JSON lines on stderr (stdout stays free for command output), LOG_LEVEL. */
export function defaultJudgeLogger(): Logger {
  return pino({ name: "rlf-judge", level: process.env.LOG_LEVEL ?? "info" }, pino.destination(2));
}

export function createJudgments(service: JudgeServiceHandle, metrics: JudgeMetrics, log: Logger): Judgments {
  return {
    async run(body, { transport, spanName, parent, signal }) {
      const started = performance.now();
      metrics.started();
      const span = tracer.startSpan(spanName, { kind: SpanKind.SERVER }, parent);
      const parsed = judgeRequestSchema.safeParse(body);
      const mode = parsed.success ? parsed.data.mode : "invalid";
      span.setAttribute("judge.mode", mode);
      let outcome: JudgeOutcome;
      if (!parsed.success) {
        outcome = {
          ok: false,
          error: { code: "INVALID_REQUEST", message: z.prettifyError(parsed.error).replaceAll("\n", "; ") },
        };
      } else {
        try {
          outcome = await context.with(trace.setSpan(parent, span), () =>
            service.judge(parsed.data, { signal }),
          );
        } catch (err) {
          log.error({ err, mode }, "judge service threw (a bug): answering INTERNAL");
          outcome = { ok: false, error: { code: "INTERNAL", message: "internal judge error" } };
        }
      }
      if (outcome.ok) {
        const m = outcome.result.metadata;
        span.setAttributes({
          "judge.score": outcome.result.score,
          "judge.model": m.judge_model,
          "judge.template": m.template,
          "judge.cached": m.cached,
          "judge.calls": m.calls,
        });
      } else {
        span.setAttribute("judge.error_code", outcome.error.code);
        span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error.message });
      }
      span.end();
      const seconds = (performance.now() - started) / 1000;
      metrics.finished({ mode, transport, outcome, seconds });
      if (!outcome.ok) log.debug({ mode, transport, error: outcome.error }, "judge request failed");
      return outcome;
    },
  };
}

export async function startJudgeServer(
  service: JudgeServiceHandle,
  opts: JudgeServerOptions,
): Promise<JudgeServer> {
  const metrics = createJudgeMetrics();
  const judgments = createJudgments(service, metrics, opts.log);
  const maxMessageBytes = opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const http = buildJudgeHttpServer({
    judgments,
    registry: metrics.registry,
    bodyLimitBytes: maxMessageBytes,
  });
  const httpUrl = await http.listen({ host: opts.httpHost, port: opts.httpPort });
  let grpc: Awaited<ReturnType<typeof startJudgeGrpcServer>>;
  try {
    grpc = await startJudgeGrpcServer(judgments, {
      host: opts.grpcHost,
      port: opts.grpcPort,
      maxMessageBytes,
    });
  } catch (err) {
    await http.close();
    throw err;
  }
  return {
    httpUrl,
    grpcAddress: `${opts.grpcHost}:${grpc.port}`,
    metrics,
    close: async () => {
      await Promise.all([http.close(), grpc.close()]);
    },
  };
}

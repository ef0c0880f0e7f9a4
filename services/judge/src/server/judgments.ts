// One judge request through the service, whichever transport it came by (`Judgments.run`): a SERVER
// span continuing the caller's trace, zod validation, the service call, and one `Judgment` event for
// the metrics and logs. The gRPC and HTTP servers both take a `Judgments`.
import { type Context, context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Logger } from "pino";
import { z } from "zod";
import { type JudgeOutcome, type JudgeRequest, judgeRequestSchema } from "../judge-types.ts";
import type { JudgeMetrics, Judgment } from "./metrics.ts";

/** What the servers need of the judge service (createJudgeService's result fits). */
export interface JudgeServiceHandle {
  judge(request: JudgeRequest, opts?: { signal?: AbortSignal }): Promise<JudgeOutcome>;
  close(): Promise<void>;
}

/** One request through the service, whichever transport it came by. */
export interface Judgments {
  run(
    body: unknown,
    opts: { transport: Judgment["transport"]; spanName: string; parent: Context; signal: AbortSignal },
  ): Promise<JudgeOutcome>;
}

const tracer = trace.getTracer("rlfactory-judge");

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

// The judge service on the network: HTTP JSON (http-server.ts) and gRPC (grpc-server.ts) in front of
// one judge service (judge-service.ts), sharing one request path (`Judgments.run`): a SERVER span
// continuing the caller's trace, zod validation, the service call, and one `Judgment` event for the
// metrics and logs. Stopping the servers does not close the service: its owner does.
import { type Logger, pino } from "pino";
import { startJudgeGrpcServer } from "./grpc-server.ts";
import { buildJudgeHttpServer } from "./http-server.ts";
import { createJudgments, type JudgeServiceHandle } from "./judgments.ts";
import { createJudgeMetrics, type JudgeMetrics } from "./metrics.ts";

export type { JudgeServiceHandle } from "./judgments.ts";

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
/** The service's logger: JSON lines on stderr (stdout stays free for command output), LOG_LEVEL. */
export function defaultJudgeLogger(): Logger {
  return pino({ name: "rlf-judge", level: process.env.LOG_LEVEL ?? "info" }, pino.destination(2));
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

// `rlf rollout serve` without the CLI: one rollout engine behind gRPC (rlfactory.v1.RolloutService,
// health, reflection) and HTTP JSON, started and stopped together.

import { DEFAULT_MAX_MESSAGE_BYTES } from "@rlfactory/clients";
import { type Logger, pino } from "pino";
import type { RolloutConfig } from "../rollout/rollout-config.ts";
import type { RolloutEngine } from "../rollout/rollout-engine.ts";
import { startRolloutGrpcServer } from "./grpc-server.ts";
import { buildRolloutHttpServer } from "./http-server.ts";
import { PolicyVersionState } from "./policy-version.ts";
import { ROLLOUT_SERVICE } from "./proto.ts";
import { RequestGuard, type RequestGuardOptions } from "./request-guard.ts";
import { RunTracker } from "./run-tracker.ts";

export interface RolloutServiceOptions {
  /** Default 127.0.0.1. */
  grpcHost?: string;
  /** 0: any free port (see `grpcAddress`). */
  grpcPort: number;
  /** Default: grpcHost. */
  httpHost?: string;
  /** 0: any free port (see `httpUrl`). */
  httpPort: number;
  /** Largest gRPC message and HTTP body, in bytes (a batch of long trajectories is large). Default 256 MiB. */
  maxMessageBytes?: number;
  /** The config's staleness rule (default: none, `on_stale: flag`). */
  staleness?: RolloutConfig["staleness"];
  /**
   * API keys callers must send, and which inference servers a request may name (default: auth off;
   * loopback only, plus `configuredUrls`). `rlf rollout serve` fills it from the config's `service` block.
   */
  guard?: RequestGuardOptions;
  log?: Logger;
}

export interface RolloutServiceHandle {
  /** `host:port` for gRPC clients. */
  grpcAddress: string;
  /** `http://host:port`. */
  httpUrl: string;
  /**
   * Stops taking requests, aborts the ones in flight (their callers still get every group, with the
   * unfinished trajectories `aborted`), waits for them to finish, and closes both servers. The engine
   * is the caller's: it is not closed.
   */
  close(): Promise<void>;
}

export async function startRolloutService(
  engine: RolloutEngine,
  opts: RolloutServiceOptions,
): Promise<RolloutServiceHandle> {
  const log = opts.log ?? defaultServiceLogger();
  const grpcHost = opts.grpcHost ?? "127.0.0.1";
  const httpHost = opts.httpHost ?? grpcHost;
  const maxMessageBytes = opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const stopping = new AbortController();
  const versions = new PolicyVersionState(opts.staleness ?? { on_stale: "flag" });
  const guard = new RequestGuard(opts.guard);
  const tracker = new RunTracker();

  const grpc = await startRolloutGrpcServer(
    { engine, versions, log, stopping: stopping.signal, guard, tracker },
    { host: grpcHost, port: opts.grpcPort, maxMessageBytes },
  );
  const http = buildRolloutHttpServer({
    engine,
    versions,
    log,
    stopping: stopping.signal,
    bodyLimitBytes: maxMessageBytes,
    guard,
    tracker,
  });
  try {
    await http.app.listen({ host: httpHost, port: opts.httpPort });
  } catch (err) {
    await grpc.close(0);
    throw err;
  }
  const address = http.app.server.address();
  const httpPort = typeof address === "object" && address ? address.port : opts.httpPort;
  grpc.health.setStatus("", "SERVING");
  grpc.health.setStatus(ROLLOUT_SERVICE, "SERVING");
  const grpcAddress = `${hostForUrl(grpcHost)}:${grpc.port}`;
  const httpUrl = `http://${hostForUrl(httpHost)}:${httpPort}`;
  log.info(
    { grpc: grpcAddress, http: httpUrl, auth: guard.authEnabled ? "api keys" : "off" },
    "rollout service listening",
  );

  let closing: Promise<void> | undefined;
  return {
    grpcAddress,
    httpUrl,
    close: () => {
      closing ??= (async () => {
        grpc.health.setStatus("", "NOT_SERVING");
        grpc.health.setStatus(ROLLOUT_SERVICE, "NOT_SERVING");
        stopping.abort(new Error("the rollout service is stopping"));
        await Promise.all([grpc.close(), http.close()]);
      })();
      return closing;
    },
  };
}

/** The logger `startRolloutService` uses when given none (LOG_LEVEL, default info); share it with the engine. */
export function defaultServiceLogger(): Logger {
  return pino({ name: "rlf-rollout", level: process.env.LOG_LEVEL ?? "info" });
}

function hostForUrl(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

// A gRPC server with what every rlfactory service exposes besides its own API: grpc.health.v1
// (NOT_SERVING until the caller says otherwise), server reflection over the service's descriptors,
// message-size limits, and a graceful close that forces shutdown after a grace period.
import { Server, ServerCredentials, type ServerUnaryCall, type ServerWritableStream } from "@grpc/grpc-js";
import type { PackageDefinition } from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";
import { HealthImplementation } from "grpc-health-check";

export interface GrpcHost {
  server: Server;
  health: HealthImplementation;
  port: number;
  close(graceMs?: number): Promise<void>;
}

export async function startGrpcHost(opts: {
  /** Descriptors served by reflection (the service's own plus grpc.health.v1). */
  definition: PackageDefinition;
  /** Fully qualified service name, reported by health next to "". */
  serviceName: string;
  /** Adds the service's handlers to the server. */
  addServices(server: Server): void;
  host: string;
  port: number;
  maxMessageBytes: number;
}): Promise<GrpcHost> {
  const server = new Server({
    "grpc.max_receive_message_length": opts.maxMessageBytes,
    "grpc.max_send_message_length": opts.maxMessageBytes,
  });
  opts.addServices(server);
  const health = new HealthImplementation({ "": "NOT_SERVING", [opts.serviceName]: "NOT_SERVING" });
  health.addToServer(server);
  new ReflectionService(opts.definition).addToServer(server);

  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${opts.host}:${opts.port}`, ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    server,
    health,
    port,
    close: (graceMs = 5_000) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}

/** setTimeout's largest delay; longer deadlines rely on grpc-js's "cancelled". */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A signal that aborts when the client cancels the call or its deadline passes (grpc-js also reports a
 * passed deadline as "cancelled"; the timer does not depend on that). `done()` releases the timer.
 */
export function callerGone(
  call: ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>,
): {
  signal: AbortSignal;
  done(): void;
} {
  const controller = new AbortController();
  call.once("cancelled", () => controller.abort(new Error("the client cancelled the call")));
  const deadline = call.getDeadline();
  const ms = (deadline instanceof Date ? deadline.getTime() : deadline) - Date.now();
  const timer =
    ms < MAX_TIMER_MS
      ? setTimeout(() => controller.abort(new Error("the call's deadline passed")), Math.max(0, ms))
      : undefined;
  return { signal: controller.signal, done: () => clearTimeout(timer) };
}

// A gRPC server with what every rlfactory service exposes besides its own API: grpc.health.v1
// (NOT_SERVING until the caller says otherwise), server reflection over the service's descriptors,
// message-size limits, and a graceful close that forces shutdown after a grace period.
import { Server, ServerCredentials } from "@grpc/grpc-js";
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

// `rlf rollout serve --config FILE`: the rollout engine as a service for a training engine
// (gRPC rlfactory.v1.RolloutService + HTTP JSON; see services/rollout/src/serve/README.md).
import { parseArgs } from "node:util";
import { portArg, stopOnSignals, UsageError } from "@rlfactory/kit/command-line";
import {
  createRolloutEngine,
  defaultServiceLogger,
  guardOptionsFromConfig,
  loadRolloutConfig,
  type RolloutServiceHandle,
  startRolloutService,
  waitForGateway,
} from "@rlfactory/rollout";
import { startTelemetry } from "@rlfactory/telemetry";

/** `rlf rollout serve ARGV` (ARGV: what follows `serve`). */
export async function runRolloutServeCommand(argv: string[]): Promise<number> {
  let values: { config?: string; "grpc-port"?: string; "http-port"?: string; host?: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        config: { type: "string", short: "c" },
        "grpc-port": { type: "string", default: "50061" },
        "http-port": { type: "string", default: "8091" },
        host: { type: "string", default: "127.0.0.1" },
      },
      strict: true,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (!values.config) throw new UsageError("rlf rollout serve needs --config FILE");
  const grpcPort = portArg(values["grpc-port"] ?? "50061", "--grpc-port");
  const httpPort = portArg(values["http-port"] ?? "8091", "--http-port");
  const host = values.host ?? "127.0.0.1";

  const log = defaultServiceLogger();
  const config = await loadRolloutConfig(values.config);
  const guard = guardOptionsFromConfig(config);
  // A gateway that is not up yet (the stack still starting) is waited for, not a reason to exit.
  const stopWaiting = new AbortController();
  const onSignal = () => stopWaiting.abort(new Error("stopped while waiting for the gateway"));
  process.once("SIGINT", onSignal).once("SIGTERM", onSignal);
  try {
    const apiKeyEnv = config.gateway.api_key_env;
    await waitForGateway(config.gateway.address, {
      log,
      signal: stopWaiting.signal,
      ...(apiKeyEnv ? { apiKey: process.env[apiKeyEnv] ?? "" } : {}),
    });
  } finally {
    process.off("SIGINT", onSignal).off("SIGTERM", onSignal);
  }
  const telemetry = await startTelemetry({ serviceName: "rlf-rollout" });
  const engine = await createRolloutEngine(config, { log });
  let service: RolloutServiceHandle;
  try {
    service = await startRolloutService(engine, {
      grpcHost: host,
      grpcPort,
      httpPort,
      staleness: config.staleness,
      guard,
      log,
    });
  } catch (err) {
    await engine.close();
    await telemetry.shutdown();
    throw err;
  }
  stopOnSignals(async () => {
    await service.close();
    await engine.close();
    await telemetry.shutdown();
  });
  return -1;
}

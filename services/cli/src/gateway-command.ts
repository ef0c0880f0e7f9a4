// `rlf gateway --config FILE`
import { parseArgs } from "node:util";
import { loadConfigFile, startGateway } from "@rlfactory/gateway";
import { startTelemetry } from "@rlfactory/telemetry";
import { UsageError } from "./usage-error.ts";

export async function runGatewayCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: "string", short: "c" },
      "grpc-port": { type: "string" },
      "admin-port": { type: "string" },
    },
    strict: true,
  });
  if (!values.config) throw new UsageError("rlf gateway needs --config FILE");
  const config = loadConfigFile(values.config);
  if (values["grpc-port"]) config.grpc.port = portArg(values["grpc-port"], "--grpc-port");
  if (values["admin-port"]) config.admin.port = portArg(values["admin-port"], "--admin-port");
  const telemetry = await startTelemetry({ serviceName: "rlf-gateway" });
  const gateway = await startGateway(config);
  stopOnSignals(async () => {
    await gateway.close();
    await telemetry.shutdown();
  });
  return -1;
}

export function portArg(text: string, flag: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`${flag} must be a port number`);
  return port;
}

/** Runs `stop` once on SIGINT/SIGTERM, then exits; a second signal exits at once. */
export function stopOnSignals(stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stderr.write(`rlf: ${signal}, shutting down\n`);
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`rlf: shutdown failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

// `rlf gateway --config FILE`
import { parseArgs } from "node:util";
import { loadConfigFile, startGateway } from "@rlfactory/gateway";
import { portArg, stopOnSignals, UsageError } from "@rlfactory/kit/command-line";
import { startTelemetry } from "@rlfactory/telemetry";

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

// `rlf gateway --config FILE [--mcp-stdio]`: with --mcp-stdio the gateway also serves its MCP server
// (docs/mcp.md) on stdin/stdout, logs go to stderr, and it stops when the client closes stdin.
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
      "mcp-stdio": { type: "boolean" },
    },
    strict: true,
  });
  if (!values.config) throw new UsageError("rlf gateway needs --config FILE");
  const config = loadConfigFile(values.config);
  if (values["grpc-port"]) config.grpc.port = portArg(values["grpc-port"], "--grpc-port");
  if (values["admin-port"]) config.admin.port = portArg(values["admin-port"], "--admin-port");
  const telemetry = await startTelemetry({ serviceName: "rlf-gateway" });
  const mcpStdio = values["mcp-stdio"] === true;
  // stdout is the MCP transport then: every log line goes to stderr.
  const gateway = await startGateway(config, { logToStderr: mcpStdio });
  const stop = async () => {
    await gateway.close();
    await telemetry.shutdown();
  };
  stopOnSignals(stop);
  if (!mcpStdio) return -1;
  await gateway.serveMcpStdio();
  await stop();
  return 0;
}

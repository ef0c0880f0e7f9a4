// `rlf console [--port 8090] [--host 127.0.0.1] [--gateway-admin URL] [--runs DIR] [--jaeger URL]
// [--bundles DIR]`: the web console (services/console): the gateway's tools with health, breaker,
// latency and a playground, the runs under DIR with every trajectory's tokens, live episodes, the
// environment bundles under --bundles, and tool-call timelines (from Jaeger when --jaeger is set).
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildConsoleApp, CONSOLE_PORT, DEFAULT_GATEWAY_ADMIN } from "@rlfactory/console";
import { portArg, stopOnSignals, UsageError } from "@rlfactory/kit/command-line";

export async function runConsoleCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      "gateway-admin": { type: "string" },
      runs: { type: "string" },
      jaeger: { type: "string" },
      bundles: { type: "string" },
    },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new UsageError(`rlf console: unexpected "${positionals[0]}"`);
  const gatewayAdmin = values["gateway-admin"] ?? DEFAULT_GATEWAY_ADMIN;
  if (!URL.canParse(gatewayAdmin))
    throw new UsageError(`rlf console: --gateway-admin ${gatewayAdmin} is not a URL`);
  const jaeger = values.jaeger;
  if (jaeger !== undefined && !URL.canParse(jaeger))
    throw new UsageError(`rlf console: --jaeger ${jaeger} is not a URL`);
  const app = buildConsoleApp({
    gatewayAdmin,
    runsDir: resolve(values.runs ?? "runs"),
    ...(jaeger === undefined ? {} : { jaeger }),
    ...(values.bundles === undefined ? {} : { bundlesDir: resolve(values.bundles) }),
  });
  const host = values.host ?? "127.0.0.1";
  const port = values.port ? portArg(values.port, "--port") : CONSOLE_PORT;
  const url = await app.listen({ host, port });
  process.stderr.write(`rlf console: ${url} (gateway admin ${gatewayAdmin})\n`);
  stopOnSignals(async () => {
    await app.close();
  });
  return -1;
}

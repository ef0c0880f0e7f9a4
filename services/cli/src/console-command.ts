// `rlf console [--port 8090] [--host 127.0.0.1] [--gateway-admin URL] [--runs DIR] [--rollout URL]`:
// the web console (services/console): the gateway's tools with health, breaker and latency, the runs
// under DIR with every trajectory's tokens, and the rollout service's runs in flight (--rollout).
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
      rollout: { type: "string" },
    },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new UsageError(`rlf console: unexpected "${positionals[0]}"`);
  const gatewayAdmin = values["gateway-admin"] ?? DEFAULT_GATEWAY_ADMIN;
  if (!URL.canParse(gatewayAdmin))
    throw new UsageError(`rlf console: --gateway-admin ${gatewayAdmin} is not a URL`);
  const rollout = values.rollout;
  if (rollout !== undefined && !URL.canParse(rollout))
    throw new UsageError(`rlf console: --rollout ${rollout} is not a URL`);
  const app = buildConsoleApp({
    gatewayAdmin,
    runsDir: resolve(values.runs ?? "runs"),
    ...(rollout !== undefined && { rollout }),
  });
  const host = values.host ?? "127.0.0.1";
  const port = values.port ? portArg(values.port, "--port") : CONSOLE_PORT;
  const url = await app.listen({ host, port });
  process.stderr.write(
    `rlf console: ${url} (gateway admin ${gatewayAdmin}${rollout ? `, rollout service ${rollout}` : ""})\n`,
  );
  stopOnSignals(async () => {
    await app.close();
  });
  return -1;
}

// `rlf console [--port 8090] [--host 127.0.0.1] [--gateway-admin URL] [--runs DIR] [--rollout URL]
// [--jaeger URL] [--bundles DIR] [--api-keys-env NAME] [--gateway-api-key-env NAME]`: the web console (services/console): the
// gateway's tools with health, breaker, latency and a playground, the runs under DIR with every
// trajectory's tokens, the rollout service's runs in flight (--rollout), live episodes, the
// environment bundles under --bundles, and tool-call timelines (from Jaeger when --jaeger is set).
// Bound beyond loopback it needs --api-keys-env (refused otherwise). With the gateway's auth on,
// --gateway-api-key-env names the variable holding one of the gateway's keys, sent to its admin API.
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildConsoleApp, CONSOLE_PORT, DEFAULT_GATEWAY_ADMIN } from "@rlfactory/console";
import { apiKeysFromEnv } from "@rlfactory/kit";
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
      jaeger: { type: "string" },
      bundles: { type: "string" },
      "api-keys-env": { type: "string" },
      "gateway-api-key-env": { type: "string" },
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
  const jaeger = values.jaeger;
  if (jaeger !== undefined && !URL.canParse(jaeger))
    throw new UsageError(`rlf console: --jaeger ${jaeger} is not a URL`);
  const host = values.host ?? "127.0.0.1";
  // As the gateway's auth.api_keys_env: a variable of comma-separated keys, failing closed.
  const keysEnv = values["api-keys-env"];
  const apiKeys =
    keysEnv === undefined ? [] : apiKeysFromEnv("--api-keys-env", keysEnv, process.env[keysEnv]);
  if (apiKeys.length === 0 && !isLoopback(host)) {
    throw new UsageError(
      `rlf console: --host ${host} is beyond loopback: give --api-keys-env NAME, a variable of comma-separated API keys (as the gateway's auth.api_keys_env)`,
    );
  }
  // One key, for a client: unset or blank sends none (a gateway without auth; an optional Secret).
  const gatewayKeyEnv = values["gateway-api-key-env"];
  const gatewayApiKey =
    gatewayKeyEnv === undefined ? undefined : process.env[gatewayKeyEnv]?.trim() || undefined;
  if (gatewayKeyEnv !== undefined && gatewayApiKey === undefined) {
    process.stderr.write(
      `rlf console: warning: --gateway-api-key-env ${gatewayKeyEnv} is unset or empty: no key is sent to the gateway\n`,
    );
  }
  const app = buildConsoleApp({
    apiKeys,
    gatewayAdmin,
    ...(gatewayApiKey !== undefined && { gatewayApiKey }),
    ...(gatewayKeyEnv !== undefined && {
      gatewayApiKeyHint: `--gateway-api-key-env ${gatewayKeyEnv}${gatewayApiKey === undefined ? " (unset)" : ""}`,
    }),
    runsDir: resolve(values.runs ?? "runs"),
    ...(rollout !== undefined && { rollout }),
    ...(jaeger !== undefined && { jaeger }),
    ...(values.bundles !== undefined && { bundlesDir: resolve(values.bundles) }),
  });
  const port = values.port ? portArg(values.port, "--port") : CONSOLE_PORT;
  const url = await app.listen({ host, port });
  process.stderr.write(
    `rlf console: ${url} (gateway admin ${gatewayAdmin}${rollout ? `, rollout service ${rollout}` : ""}; ${apiKeys.length > 0 ? `api keys from ${keysEnv}` : "no api key"}${gatewayApiKey !== undefined ? `; gateway key from ${gatewayKeyEnv}` : ""})\n`,
  );
  stopOnSignals(async () => {
    await app.close();
  });
  return -1;
}

/** 127.0.0.0/8, ::1 and localhost: only this machine can connect. */
function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

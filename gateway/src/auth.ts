// Optional API keys: `authorization: Bearer KEY` in gRPC metadata or the HTTP header (the kit's
// ApiKeyAuth, shared with the rollout service).
import type { GatewayConfig } from "./config.ts";

export { ApiKeyAuth } from "@rlfactory/kit";

/** The auth mode in one line for the start-up log: counts and the variable's name, never a key. */
export function describeAuthMode(config: Pick<GatewayConfig, "apiKeys" | "apiKeysEnv">): string {
  if (config.apiKeys.length === 0) return "auth: off";
  const keys = (n: number) => `${n} key${n === 1 ? "" : "s"}`;
  const fromEnv = config.apiKeysEnv?.count ?? 0;
  const fromFile = config.apiKeys.length - fromEnv;
  const sources = [
    ...(fromFile > 0 ? [`${keys(fromFile)} from the config`] : []),
    ...(config.apiKeysEnv ? [`${keys(fromEnv)} from ${config.apiKeysEnv.name}`] : []),
  ];
  return `auth: api keys (${sources.join(", ")})`;
}

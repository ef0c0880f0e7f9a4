// Optional API keys: `authorization: Bearer KEY` in gRPC metadata or the HTTP header.
import { createHash, timingSafeEqual } from "node:crypto";
import type { GatewayConfig } from "./config.ts";

export class ApiKeyAuth {
  readonly #digests: Buffer[];

  constructor(keys: readonly string[]) {
    this.#digests = keys.map(digest);
  }

  get enabled(): boolean {
    return this.#digests.length > 0;
  }

  /** True when auth is off, or the header carries one of the keys (compared in constant time). */
  check(authorization: string | undefined): boolean {
    if (!this.enabled) return true;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    if (!match?.[1]) return false;
    const presented = digest(match[1]);
    return this.#digests.some((d) => timingSafeEqual(d, presented));
  }
}

function digest(key: string): Buffer {
  return createHash("sha256").update(key).digest();
}

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

// Who may call the rollout service and which inference servers a request may send it to, checked
// before a request does any work: a caller without a key is UNAUTHENTICATED (401), a request naming an
// inference server outside the allow-list PERMISSION_DENIED (403), and no connection is made to it.
import { ApiKeyAuth, apiKeysFromEnv } from "@rlfactory/kit";
import { InferenceUrlNotAllowedError, UnauthenticatedError } from "./errors.ts";
import type { ParsedRolloutRequest } from "./rollout-request.ts";
import type { ServiceConfig } from "./service-config.ts";

export interface RequestGuardOptions {
  /** Accepted API keys; empty: auth off. */
  apiKeys?: readonly string[];
  /** The config's own inference servers (normalised base URLs): always allowed. */
  configuredUrls?: readonly string[];
  /** `service.allowed_inference_urls`. */
  allowedInferenceUrls?: readonly string[];
  /** `service.allow_loopback_inference` (default true). */
  allowLoopback?: boolean;
}

export class RequestGuard {
  readonly #auth: ApiKeyAuth;
  readonly #origins = new Set<string>();
  readonly #hosts = new Set<string>();
  readonly #any: boolean;
  readonly #loopback: boolean;

  constructor(options: RequestGuardOptions = {}) {
    this.#auth = new ApiKeyAuth(options.apiKeys ?? []);
    this.#loopback = options.allowLoopback ?? true;
    this.#any = (options.allowedInferenceUrls ?? []).includes("*");
    for (const url of options.configuredUrls ?? []) this.#origins.add(new URL(url).origin);
    for (const entry of options.allowedInferenceUrls ?? []) {
      if (entry === "*") continue;
      const url = new URL(entry);
      // No port written: any port on that host.
      if (/^[a-z]+:\/\/[^/]*:\d+/i.test(entry)) this.#origins.add(url.origin);
      else this.#hosts.add(`${url.protocol}//${url.hostname}`);
    }
  }

  get authEnabled(): boolean {
    return this.#auth.enabled;
  }

  /** Throws UnauthenticatedError unless auth is off or `authorization` carries a key. */
  authenticate(authorization: string | undefined): void {
    if (!this.#auth.check(authorization)) {
      throw new UnauthenticatedError("missing or unknown API key (send authorization: Bearer KEY)");
    }
  }

  /** Throws InferenceUrlNotAllowedError for the first of the request's inference servers not allowed. */
  checkInference(request: ParsedRolloutRequest): void {
    for (const raw of request.options.inference?.urls ?? []) {
      if (!this.#allowed(raw)) {
        throw new InferenceUrlNotAllowedError(
          `inference.urls: ${new URL(raw).origin} is not an allowed inference server (the config's inference.urls, ` +
            `${this.#loopback ? "loopback, " : ""}and service.allowed_inference_urls are)`,
        );
      }
    }
  }

  #allowed(raw: string): boolean {
    if (this.#any) return true;
    const url = new URL(raw);
    if (this.#origins.has(url.origin)) return true;
    if (this.#hosts.has(`${url.protocol}//${url.hostname}`)) return true;
    return this.#loopback && isLoopback(url.hostname);
  }
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * What `startRolloutService`'s `guard` takes, from the config: the keys `service.auth.api_keys_env`
 * names (read now, failing closed: ApiKeysEnvError), the allow-list, and the config's own servers.
 */
export function guardOptionsFromConfig(
  config: { service: ServiceConfig; inference: { urls: readonly string[] } },
  env: NodeJS.ProcessEnv = process.env,
): RequestGuardOptions {
  const name = config.service.auth?.api_keys_env;
  return {
    apiKeys: name === undefined ? [] : apiKeysFromEnv("service.auth.api_keys_env", name, env[name]),
    configuredUrls: config.inference.urls,
    allowedInferenceUrls: config.service.allowed_inference_urls,
    allowLoopback: config.service.allow_loopback_inference,
  };
}

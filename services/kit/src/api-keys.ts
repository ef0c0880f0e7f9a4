// Optional API keys for a service's callers: `authorization: Bearer KEY` in gRPC metadata or the HTTP
// header, compared in constant time; and the keys a `*.api_keys_env` setting names, read so that auth
// fails closed. Used by the gateway and the rollout service.
import { createHash, timingSafeEqual } from "node:crypto";

/** The shortest API key accepted. */
export const MIN_API_KEY_LENGTH = 8;

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

/** An `api_keys_env` variable that cannot give keys; the message names the setting and variable, never a key. */
export class ApiKeysEnvError extends Error {
  override name = "ApiKeysEnvError";
  readonly code = "API_KEYS_ENV_INVALID";
}

/**
 * The keys in the variable `name` that the setting `setting` (e.g. `auth.api_keys_env`) names:
 * comma-separated, blanks around and between ignored. Fails closed: a variable that is unset, empty,
 * holds no key, or holds a key shorter than MIN_API_KEY_LENGTH throws ApiKeysEnvError (naming the
 * variable and the key's position, never the key), rather than serving with auth off or a guessable key.
 */
export function apiKeysFromEnv(setting: string, name: string, value: string | undefined): string[] {
  const fix = `set it to a comma-separated list of API keys of at least ${MIN_API_KEY_LENGTH} characters, or remove ${setting}`;
  const refuse = (what: string) => new ApiKeysEnvError(`${setting}: ${name} ${what} (${fix})`);
  if (value === undefined) throw refuse("is not set");
  if (value.trim() === "") throw refuse("is empty");
  const entries = value.split(",").map((k) => k.trim());
  const keys = entries.filter((k) => k !== "");
  if (keys.length === 0) throw refuse(`holds no API key, only commas and blanks`);
  entries.forEach((key, i) => {
    if (key !== "" && key.length < MIN_API_KEY_LENGTH) {
      throw refuse(
        `entry ${i + 1} of ${entries.length} is ${key.length} character${key.length === 1 ? "" : "s"} long`,
      );
    }
  });
  return keys;
}

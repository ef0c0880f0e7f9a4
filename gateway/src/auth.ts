// Optional API keys: `authorization: Bearer KEY` in gRPC metadata or the HTTP header.
import { createHash, timingSafeEqual } from "node:crypto";

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

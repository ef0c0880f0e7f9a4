// The `fetch` our Streamable HTTP upstreams use: undici's `request()` on a keep-alive pool, shaped as
// the small part of a WHATWG Response the MCP SDK reads.
//
// Why: the global `fetch` builds Request/Response objects and web streams for every call; profiling
// the gateway under load put a quarter of its CPU there. `request()` is the same HTTP stack (undici)
// without that layer. JSON bodies (what MCP servers answer for plain calls) never become a web
// stream; SSE bodies do, lazily, only when the SDK asks for `body`.
import { Readable } from "node:stream";
import { Agent, request } from "undici";

type FetchInput = string | URL | { url: string };

export interface HttpPoolOptions {
  /** Max sockets per origin. */
  connections?: number;
  keepAliveTimeoutMs?: number;
}

export function createPooledFetch(opts: HttpPoolOptions = {}) {
  const agent = new Agent({
    connections: opts.connections ?? 128,
    keepAliveTimeout: opts.keepAliveTimeoutMs ?? 30_000,
    // Long tool calls must not be cut by the HTTP client: the gateway's deadline cancels them.
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  const fetchLike = async (input: FetchInput, init: RequestInit = {}): Promise<Response> => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const res = await request(url, {
      method: (init.method ?? "GET") as "GET",
      headers: headerRecord(init.headers),
      body: init.body as string | Buffer | undefined,
      signal: init.signal ?? undefined,
      dispatcher: agent,
    });
    return new PooledResponse(url, res) as unknown as Response;
  };
  return { fetch: fetchLike, close: () => agent.close() };
}

type UndiciResponse = Awaited<ReturnType<typeof request>>;

class PooledResponse {
  readonly url: string;
  readonly status: number;
  readonly statusText = "";
  readonly redirected = false;
  readonly type = "basic";
  readonly headers: Headers;
  #res: UndiciResponse;
  #web: ReadableStream<Uint8Array> | undefined;

  constructor(url: string, res: UndiciResponse) {
    this.url = url;
    this.#res = res;
    this.status = res.statusCode;
    this.headers = new LazyHeaders(res.headers) as unknown as Headers;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  get body(): ReadableStream<Uint8Array> {
    this.#web ??= Readable.toWeb(this.#res.body) as ReadableStream<Uint8Array>;
    return this.#web;
  }

  json(): Promise<unknown> {
    return this.#res.body.json();
  }

  text(): Promise<string> {
    return this.#res.body.text();
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.#res.body.arrayBuffer();
  }
}

/** Read-only Headers over undici's plain header object (names already lower-case). */
class LazyHeaders {
  #raw: Record<string, string | string[] | undefined>;
  constructor(raw: Record<string, string | string[] | undefined>) {
    this.#raw = raw;
  }
  get(name: string): string | null {
    const v = this.#raw[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
  }
  has(name: string): boolean {
    return this.#raw[name.toLowerCase()] !== undefined;
  }
  forEach(fn: (value: string, key: string) => void): void {
    for (const key of Object.keys(this.#raw)) {
      const value = this.get(key);
      if (value !== null) fn(value, key);
    }
  }
  *entries(): IterableIterator<[string, string]> {
    for (const key of Object.keys(this.#raw)) {
      const value = this.get(key);
      if (value !== null) yield [key, value];
    }
  }
  [Symbol.iterator]() {
    return this.entries();
  }
}

function headerRecord(h: RequestInit["headers"]): Record<string, string> {
  if (!h) return {};
  if (h instanceof Headers) return Object.fromEntries(h.entries());
  if (Array.isArray(h)) return Object.fromEntries(h);
  return h as Record<string, string>;
}

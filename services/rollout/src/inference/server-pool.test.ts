// Routing rules of ServerPool (no traffic: the pool only decides; the transport tests send requests).
import { afterEach, describe, expect, it, vi } from "vitest";
import { normaliseServerUrl, ServerPool } from "./server-pool.ts";

const URLS = ["http://127.0.0.1:9001", "http://127.0.0.1:9002", "http://127.0.0.1:9003"];
const pools: ServerPool[] = [];
function pool(urls = URLS, options: Partial<ConstructorParameters<typeof ServerPool>[1]> = {}) {
  const p = new ServerPool(urls, { connections: 4, ...options });
  pools.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe("normaliseServerUrl", () => {
  it("drops trailing slashes and a trailing /v1, keeps a path prefix", () => {
    expect(normaliseServerUrl("http://gpu-0:8000/")).toBe("http://gpu-0:8000");
    expect(normaliseServerUrl("http://gpu-0:8000/v1/")).toBe("http://gpu-0:8000");
    expect(normaliseServerUrl("https://proxy.internal/llm/v1")).toBe("https://proxy.internal/llm");
  });
  it("rejects what is not an http(s) base URL, saying which", () => {
    expect(() => normaliseServerUrl("gpu-0:8000")).toThrow(/"gpu-0:8000".*http/);
    expect(() => normaliseServerUrl("not a url")).toThrow(/is not a URL/);
    expect(() => normaliseServerUrl("http://h:1/?x=1")).toThrow(/query/);
  });
});

describe("ServerPool", () => {
  it("refuses an empty or duplicated server list", () => {
    expect(() => pool([])).toThrow(/at least one/);
    expect(() => pool(["http://a:1", "http://a:1/"])).toThrow(/listed twice/);
  });

  it("sends each request to the server with the fewest in flight", () => {
    const p = pool();
    const picked = Array.from({ length: 9 }, () => {
      const s = p.pick(undefined);
      p.begin(s);
      return s.url;
    });
    for (const url of URLS) expect(picked.filter((u) => u === url)).toHaveLength(3);
    // Free two slots on the second server: it is now the least loaded, twice.
    const second = p.pick(undefined, new Set([URLS[0]!, URLS[2]!]));
    p.end(second);
    p.end(second);
    expect(p.pick(undefined).url).toBe(URLS[1]);
    expect(p.status().map((s) => s.inFlight)).toEqual([3, 1, 3]);
  });

  it("spreads sequential requests over idle servers (ties rotate)", () => {
    const p = pool();
    const seen = new Set(Array.from({ length: 3 }, () => p.pick(undefined).url));
    expect(seen.size).toBe(3);
  });

  it("keeps a session on its server even when another is less loaded", () => {
    const p = pool();
    const first = p.pick("traj-1");
    p.begin(first);
    p.begin(first);
    for (let i = 0; i < 5; i++) expect(p.pick("traj-1").url).toBe(first.url);
    expect(p.sessionServer("traj-1")).toBe(first.url);
  });

  it("re-pins a session to the least-loaded healthy server when its server is ejected", () => {
    const p = pool(URLS.slice(0, 2));
    const first = p.pick("traj-1");
    p.failed(first);
    expect(p.status().find((s) => s.url === first.url)?.healthy).toBe(false);
    const second = p.pick("traj-1");
    expect(second.url).not.toBe(first.url);
    expect(p.sessionServer("traj-1")).toBe(second.url);
    // The session stays where it was re-pinned, also after the first server is back.
    p.succeeded(first);
    expect(p.pick("traj-1").url).toBe(second.url);
  });

  it("brings an ejected server back after its cool-down, and doubles the cool-down on repeat failures", async () => {
    // The pool reads Date.now(): a frozen clock, moved by hand, makes every cool-down exact.
    vi.useFakeTimers({ toFake: ["Date"], now: 1_000_000 });
    try {
      const p = pool(URLS.slice(0, 2), { cooldownMs: 40, maxCooldownMs: 100 });
      const [a] = URLS;
      const server = p.pick(undefined, new Set([URLS[1]!]));
      expect(server.url).toBe(a);
      p.failed(server);
      expect(p.status()[0]!.ejectedForMs).toBe(40);
      for (let i = 0; i < 4; i++) expect(p.pick(undefined).url).not.toBe(a);
      vi.setSystemTime(Date.now() + 39);
      expect(p.status()[0]).toMatchObject({ healthy: false, ejectedForMs: 1 });
      vi.setSystemTime(Date.now() + 1);
      expect(p.status()[0]).toMatchObject({ healthy: true, ejectedForMs: 0, consecutiveFailures: 1 });
      p.failed(server); // second failure in a row: 80 ms
      expect(p.status()[0]!.ejectedForMs).toBe(80);
      p.failed(server); // third: 160 ms, capped at 100
      expect(p.status()[0]!.ejectedForMs).toBe(100);
      p.succeeded(server);
      expect(p.status()[0]).toMatchObject({ healthy: true, ejectedForMs: 0, consecutiveFailures: 0 });
    } finally {
      vi.useRealTimers();
    }
  });

  it("when every server is ejected, still answers: an untried one, else the one back first", () => {
    const p = pool(URLS.slice(0, 2), { cooldownMs: 10_000 });
    const [a, b] = URLS.slice(0, 2).map((u) => p.pick(undefined, new Set(URLS.filter((x) => x !== u))));
    p.failed(a!);
    p.failed(b!);
    p.failed(b!); // b's cool-down is longer
    expect(p.pick(undefined).url).toBe(a!.url);
    expect(p.pick(undefined, new Set([a!.url])).url).toBe(b!.url);
    expect(p.pick(undefined, new Set([a!.url, b!.url])).url).toBe(a!.url);
  });

  it("avoids the servers a request already tried while another is healthy", () => {
    const p = pool();
    const tried = new Set([URLS[0]!, URLS[1]!]);
    for (let i = 0; i < 3; i++) expect(p.pick(undefined, tried).url).toBe(URLS[2]);
    expect(p.pick("s", new Set([URLS[0]!])).url).not.toBe(URLS[0]);
  });

  it("forgets the least recently used sessions beyond its cap", () => {
    const p = pool(URLS, { maxSessions: 3 });
    for (const id of ["s1", "s2", "s3"]) p.pick(id);
    p.pick("s1"); // refresh s1: s2 is now the oldest
    p.pick("s4");
    expect(p.sessionCount).toBe(3);
    expect(p.sessionServer("s2")).toBeUndefined();
    for (const id of ["s1", "s3", "s4"]) expect(p.sessionServer(id)).toBeDefined();
  });
});

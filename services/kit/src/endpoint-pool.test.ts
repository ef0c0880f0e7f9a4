// Routing rules of EndpointPool: least-loaded choice, stickiness, ejection and re-admission. The pool
// only decides, so these tests send no traffic; time is an injected clock.
import { describe, expect, it } from "vitest";
import { EndpointPool, type EndpointPoolOptions } from "./endpoint-pool.ts";

const URLS = ["http://127.0.0.1:9001", "http://127.0.0.1:9002", "http://127.0.0.1:9003"];

/** A pool over plain endpoints, with a clock the test moves by hand. */
function pool(urls = URLS, options: EndpointPoolOptions = {}) {
  const clock = { ms: 1_000_000 };
  const p = new EndpointPool(
    urls.map((url) => ({ url })),
    { now: () => clock.ms, ...options },
  );
  return { p, clock };
}

describe("EndpointPool", () => {
  it("refuses an empty or duplicated endpoint list", () => {
    expect(() => pool([])).toThrow(/at least one/);
    expect(() => pool(["http://a:1", "http://a:1"])).toThrow(/http:\/\/a:1 is listed twice/);
  });

  it("sends each attempt to the endpoint with the fewest in flight", () => {
    const { p } = pool();
    const picked = Array.from({ length: 9 }, () => {
      const e = p.pick(undefined);
      p.begin(e);
      return e.url;
    });
    for (const url of URLS) expect(picked.filter((u) => u === url)).toHaveLength(3);
    // Free two slots on the second endpoint: it is now the least loaded, twice.
    const second = p.endpoints[1]!;
    p.end(second);
    p.end(second);
    for (let i = 0; i < 2; i++) {
      const e = p.pick(undefined);
      expect(e.url).toBe(URLS[1]);
      p.begin(e);
    }
    expect(p.inFlight()).toEqual({ [URLS[0]!]: 3, [URLS[1]!]: 3, [URLS[2]!]: 3 });
    expect(p.status().map((s) => s.inFlight)).toEqual([3, 3, 3]);
  });

  it("spreads sequential attempts over idle endpoints (ties rotate)", () => {
    const { p } = pool();
    const picked = Array.from({ length: 6 }, () => p.pick(undefined).url);
    for (const url of URLS) expect(picked.filter((u) => u === url)).toHaveLength(2);
  });

  it("keeps a session on its endpoint even when another is less loaded", () => {
    const { p } = pool();
    const first = p.pick("traj-1");
    p.begin(first);
    p.begin(first);
    for (let i = 0; i < 5; i++) expect(p.pick("traj-1").url).toBe(first.url);
    expect(p.sessionEndpoint("traj-1")).toBe(first.url);
    // Another session goes elsewhere: the first endpoint is the busiest.
    expect(p.pick("traj-2").url).not.toBe(first.url);
    expect(p.sessionCount).toBe(2);
  });

  it("re-pins a session to the least-loaded healthy endpoint when its endpoint is ejected", () => {
    const { p } = pool(URLS.slice(0, 2));
    const first = p.pick("traj-1");
    p.failed(first);
    expect(p.status().find((s) => s.url === first.url)?.healthy).toBe(false);
    const second = p.pick("traj-1");
    expect(second.url).not.toBe(first.url);
    expect(p.sessionEndpoint("traj-1")).toBe(second.url);
    // The session stays where it was re-pinned, also after the first endpoint is back.
    p.succeeded(first);
    expect(p.pick("traj-1").url).toBe(second.url);
  });

  it("leaves a session's endpoint for a retry that already tried it, and re-pins", () => {
    const { p } = pool(URLS.slice(0, 2));
    const first = p.pick("traj-1");
    const retry = p.pick("traj-1", new Set([first.url]));
    expect(retry.url).not.toBe(first.url);
    expect(p.sessionEndpoint("traj-1")).toBe(retry.url);
  });

  it("ejects a failed endpoint until its cool-down ends, then chooses it again", () => {
    const { p, clock } = pool(URLS.slice(0, 2), { cooldownMs: 40, maxCooldownMs: 100 });
    const [a, b] = p.endpoints;
    p.failed(a!);
    expect(p.status()[0]).toMatchObject({ healthy: false, ejectedForMs: 40, consecutiveFailures: 1 });
    for (let i = 0; i < 4; i++) expect(p.pick(undefined).url).toBe(b!.url);
    clock.ms += 39;
    expect(p.pick(undefined).url).toBe(b!.url);
    clock.ms += 1; // the cool-down is over: re-admitted, and picked again (ties rotate)
    expect(p.status()[0]).toMatchObject({ healthy: true, ejectedForMs: 0, consecutiveFailures: 1 });
    const picked = Array.from({ length: 4 }, () => p.pick(undefined).url);
    expect(picked.filter((u) => u === a!.url)).toHaveLength(2);
  });

  it("doubles the cool-down with each consecutive failure, up to the cap; a success resets it", () => {
    const { p } = pool(URLS.slice(0, 2), { cooldownMs: 40, maxCooldownMs: 100 });
    const a = p.endpoints[0]!;
    const ejected = () => p.status()[0]!.ejectedForMs;
    p.failed(a);
    expect(ejected()).toBe(40);
    p.failed(a);
    expect(ejected()).toBe(80);
    p.failed(a);
    expect(ejected()).toBe(100); // 160, capped
    p.succeeded(a);
    expect(p.status()[0]).toMatchObject({ healthy: true, ejectedForMs: 0, consecutiveFailures: 0 });
    p.failed(a);
    expect(ejected()).toBe(40); // counting starts over
  });

  it("when every endpoint is ejected, still answers: an untried one, else the one back first", () => {
    const { p } = pool(URLS.slice(0, 2), { cooldownMs: 10_000 });
    const [a, b] = p.endpoints;
    p.failed(a!);
    p.failed(b!);
    p.failed(b!); // b's cool-down is longer
    expect(p.pick(undefined).url).toBe(a!.url);
    expect(p.pick(undefined, new Set([a!.url])).url).toBe(b!.url);
    expect(p.pick(undefined, new Set([a!.url, b!.url])).url).toBe(a!.url);
  });

  it("avoids the endpoints a request already tried while another is healthy", () => {
    const { p } = pool();
    const tried = new Set([URLS[0]!, URLS[1]!]);
    for (let i = 0; i < 3; i++) expect(p.pick(undefined, tried).url).toBe(URLS[2]);
    expect(p.pick("s", new Set([URLS[0]!])).url).not.toBe(URLS[0]);
    // Every endpoint tried: any healthy one will do.
    expect(URLS).toContain(p.pick(undefined, new Set(URLS)).url);
  });

  it("forgets the least recently used sessions beyond its cap", () => {
    const { p } = pool(URLS, { maxSessions: 3 });
    for (const id of ["s1", "s2", "s3"]) p.pick(id);
    p.pick("s1"); // refresh s1: s2 is now the oldest
    p.pick("s4");
    expect(p.sessionCount).toBe(3);
    expect(p.sessionEndpoint("s2")).toBeUndefined();
    for (const id of ["s1", "s3", "s4"]) expect(p.sessionEndpoint(id)).toBeDefined();
    p.clearSessions();
    expect(p.sessionCount).toBe(0);
  });

  it("refuses an endpoint that is not its own", () => {
    const { p } = pool();
    expect(() => p.begin({ url: URLS[0]! })).toThrow(/not in this pool/);
  });
});

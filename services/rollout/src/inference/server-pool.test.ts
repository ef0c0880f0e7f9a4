// The sampler's server list: URL normalisation, refusals, one keep-alive pool per server with its path
// prefix. The routing rules themselves (least-loaded, sticky sessions, ejection) are the kit's
// EndpointPool's and are tested there (services/kit/src/endpoint-pool.test.ts).

import { normaliseServerUrl } from "@rlfactory/clients";
import { afterEach, describe, expect, it } from "vitest";
import { ServerPool } from "./server-pool.ts";

const pools: ServerPool[] = [];
function pool(urls: string[], options: Partial<ConstructorParameters<typeof ServerPool>[1]> = {}) {
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
  it("refuses an empty server list, and one that names a server twice once normalised", () => {
    expect(() => pool([])).toThrow(/at least one server URL/);
    expect(() => pool(["http://a:1", "http://a:1/v1/"])).toThrow(/http:\/\/a:1 is listed twice/);
  });

  it("gives each server its normalised URL, its path prefix and its own keep-alive pool", () => {
    const p = pool(["http://gpu-0:8000/v1", "https://proxy.internal/llm/"]);
    expect(p.endpoints.map((s) => [s.url, s.basePath])).toEqual([
      ["http://gpu-0:8000", ""],
      ["https://proxy.internal/llm", "/llm"],
    ]);
    expect(p.endpoints[0]!.dispatcher).not.toBe(p.endpoints[1]!.dispatcher);
  });

  it("routes with the pool options it was given: a session sticks, a failure ejects for cooldownMs", () => {
    const p = pool(["http://a:1", "http://b:1"], { cooldownMs: 60_000, maxSessions: 1 });
    const first = p.pick("traj-1");
    p.begin(first);
    expect(p.pick("traj-1")).toBe(first);
    p.failed(first);
    expect(p.status().find((s) => s.url === first.url)).toMatchObject({ healthy: false, inFlight: 1 });
    expect(p.status().find((s) => s.url === first.url)!.ejectedForMs).toBeGreaterThan(50_000);
    expect(p.pick("traj-1").url).not.toBe(first.url);
    p.pick("traj-2"); // maxSessions 1: traj-1 is forgotten
    expect(p.sessionCount).toBe(1);
    expect(p.sessionEndpoint("traj-1")).toBeUndefined();
    p.end(first);
  });
});

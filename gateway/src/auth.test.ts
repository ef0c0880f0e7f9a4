import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { ApiKeyAuth, describeAuthMode } from "./auth.ts";
import { normaliseConfig } from "./config.ts";
import { startGateway } from "./gateway.ts";

describe("ApiKeyAuth", () => {
  it("accepts anything when no keys are configured", () => {
    expect(new ApiKeyAuth([]).check(undefined)).toBe(true);
  });
  it("accepts only a configured bearer key", () => {
    const auth = new ApiKeyAuth(["secret-key-1", "secret-key-2"]);
    expect(auth.check("Bearer secret-key-2")).toBe(true);
    expect(auth.check("bearer secret-key-1")).toBe(true);
    expect(auth.check("Bearer secret-key-3")).toBe(false);
    expect(auth.check("secret-key-1")).toBe(false);
    expect(auth.check(undefined)).toBe(false);
  });
});

describe("the gateway's auth mode", () => {
  const KEY = "key-number-one";
  /** A gateway on OS-chosen loopback ports whose one upstream refuses connections, and its log lines. */
  async function start(auth: Record<string, unknown> | undefined, env: Record<string, string> = {}) {
    const config = normaliseConfig(
      {
        grpc: { port: 0 },
        admin: { port: 0 },
        ...(auth ? { auth } : {}),
        // nothing listens on port 1: the connect error names the address
        servers: {
          remote: {
            url: "http://127.0.0.1:1/mcp",
            policy: {
              connect_timeout_ms: 2_000,
              // one attempt in the test's lifetime: the state stays `down`
              reconnect: { initial_delay_ms: 600_000, max_delay_ms: 600_000 },
            },
          },
        },
      },
      process.cwd(),
      { env },
    );
    const lines: { msg: string; [k: string]: unknown }[] = [];
    const log = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const gateway = await startGateway(config, { log });
    return {
      gateway,
      lines,
      readyz: (headers: Record<string, string> = {}) => readyz(gateway.adminUrl!, headers),
    };
  }
  const readyz = async (adminUrl: string, headers: Record<string, string>) => {
    const res = await fetch(`${adminUrl}/readyz`, { headers });
    return { status: res.status, body: (await res.json()) as { status: string; upstreams: object[] } };
  };
  const authLines = (lines: { msg: string }[]) => lines.filter((l) => l.msg.startsWith("auth: "));

  it("names the mode once at start, counting keys by source, never printing one", () => {
    expect(describeAuthMode({ apiKeys: [], apiKeysEnv: undefined })).toBe("auth: off");
    expect(
      describeAuthMode({ apiKeys: ["a", "b", "c"], apiKeysEnv: { name: "RLF_API_KEYS", count: 3 } }),
    ).toBe("auth: api keys (3 keys from RLF_API_KEYS)");
    expect(describeAuthMode({ apiKeys: ["a", "b"], apiKeysEnv: { name: "K", count: 1 } })).toBe(
      "auth: api keys (1 key from the config, 1 key from K)",
    );
  });

  it("with keys from the environment: starts, logs the mode, and /readyz without a key says only each upstream's state", async () => {
    const { gateway, lines, readyz } = await start(
      { api_keys_env: "RLF_API_KEYS" },
      { RLF_API_KEYS: `${KEY}, key-number-two` },
    );
    try {
      expect(authLines(lines).map((l) => l.msg)).toEqual(["auth: api keys (2 keys from RLF_API_KEYS)"]);
      expect(JSON.stringify(lines)).not.toContain(KEY);

      const full = await readyz({ authorization: `Bearer ${KEY}` });
      expect(full.status).toBe(503);
      expect(full.body.upstreams).toEqual([
        expect.objectContaining({
          name: "remote",
          state: "down",
          detail: expect.stringContaining("connect failed"),
        }),
      ]);
      for (const headers of [{}, { authorization: "Bearer not-a-valid-key" }] as Record<string, string>[]) {
        const anonymous = await readyz(headers);
        expect(anonymous).toEqual({
          status: 503,
          body: { status: "not_ready", upstreams: [{ name: "remote", state: "down" }] },
        });
      }
    } finally {
      await gateway.close();
    }
  });

  it("with auth off: logs so, and /readyz keeps its details for everyone", async () => {
    const { gateway, lines, readyz } = await start(undefined);
    try {
      expect(authLines(lines).map((l) => l.msg)).toEqual(["auth: off"]);
      const { body } = await readyz();
      expect(body.upstreams).toEqual([
        expect.objectContaining({
          name: "remote",
          state: "down",
          breaker: "closed",
          detail: expect.stringContaining("connect failed"),
        }),
      ]);
    } finally {
      await gateway.close();
    }
  });
});

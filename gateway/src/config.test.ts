import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfigFile, normaliseConfig, parseConfigText } from "./config.ts";

const dir = mkdtempSync(join(tmpdir(), "rlf-config-"));
const write = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe("gateway config", () => {
  it("normalises our YAML format with every default filled (snapshot)", () => {
    const path = write(
      "gateway.yaml",
      `
grpc: { port: 50051 }
defaults:
  deadlineMs: 10000
  retry: { maxAttempts: 5 }
servers:
  search:
    command: node
    args: [server.js, --stdio]
    cwd: tools
    include: [search]
    policy:
      bulkhead: { maxConcurrent: 8 }
    tools:
      search: { cache: true, cacheTtlMs: 1000 }
  calc:
    url: http://127.0.0.1:7002/mcp
    headers: { x-team: rl }
    protocol: "2026-07-28"
`,
    );
    const config = loadConfigFile(path);
    expect({
      ...config,
      servers: config.servers.map((s) => ({ ...s, transport: { ...s.transport, cwd: undefined } })),
    }).toMatchInlineSnapshot(`
      {
        "admin": {
          "enabled": true,
          "host": "127.0.0.1",
          "port": 8080,
        },
        "apiKeys": [],
        "cache": {
          "backend": "memory",
          "keyPrefix": "rlf:cache:v1:",
          "maxBytes": 268435456,
          "maxEntries": 10000,
          "redisUrl": "redis://127.0.0.1:6379",
        },
        "grpc": {
          "host": "127.0.0.1",
          "maxMessageBytes": 67108864,
          "port": 50051,
        },
        "maxBatchSize": 1024,
        "servers": [
          {
            "exclude": [],
            "include": [
              "search",
            ],
            "name": "search",
            "protocol": "auto",
            "toolOverrides": {
              "search": {
                "cache": true,
                "cacheTtlMs": 1000,
              },
            },
            "toolPolicy": {
              "cache": false,
              "cacheTtlMs": 600000,
              "deadlineMs": 10000,
              "idempotent": undefined,
              "maxArgumentBytes": 1048576,
              "maxDeadlineMs": 300000,
              "maxOutputBytes": 1048576,
              "retry": {
                "initialDelayMs": 50,
                "maxAttempts": 5,
                "maxDelayMs": 1000,
              },
            },
            "transport": {
              "args": [
                "server.js",
                "--stdio",
              ],
              "command": "node",
              "cwd": undefined,
              "env": {},
              "kind": "stdio",
            },
            "upstream": {
              "breaker": {
                "consecutiveFailures": 5,
                "halfOpenAfterMs": 5000,
              },
              "bulkhead": {
                "maxConcurrent": 8,
                "maxQueue": 1024,
              },
              "connectTimeoutMs": 30000,
              "reconnect": {
                "initialDelayMs": 100,
                "maxDelayMs": 10000,
              },
            },
          },
          {
            "exclude": [],
            "include": undefined,
            "name": "calc",
            "protocol": "2026-07-28",
            "toolOverrides": {},
            "toolPolicy": {
              "cache": false,
              "cacheTtlMs": 600000,
              "deadlineMs": 10000,
              "idempotent": undefined,
              "maxArgumentBytes": 1048576,
              "maxDeadlineMs": 300000,
              "maxOutputBytes": 1048576,
              "retry": {
                "initialDelayMs": 50,
                "maxAttempts": 5,
                "maxDelayMs": 1000,
              },
            },
            "transport": {
              "cwd": undefined,
              "headers": {
                "x-team": "rl",
              },
              "kind": "http",
              "url": "http://127.0.0.1:7002/mcp",
            },
            "upstream": {
              "breaker": {
                "consecutiveFailures": 5,
                "halfOpenAfterMs": 5000,
              },
              "bulkhead": {
                "maxConcurrent": 64,
                "maxQueue": 1024,
              },
              "connectTimeoutMs": 30000,
              "reconnect": {
                "initialDelayMs": 100,
                "maxDelayMs": 10000,
              },
            },
          },
        ],
      }
    `);
    expect(config.servers[0]?.transport).toMatchObject({ cwd: join(dir, "tools") });
  });

  it("loads a Claude Desktop / Cursor mcpServers JSON unchanged, ignoring client-specific keys", () => {
    const path = write(
      "claude_desktop_config.json",
      JSON.stringify({
        mcpServers: {
          filesystem: {
            command: "npx",
            args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
            env: { DEBUG: "1" },
            autoApprove: ["read_file"],
          },
          remote: {
            type: "streamable-http",
            url: "https://tools.example.org/mcp",
            headers: { Authorization: "Bearer x" },
          },
          legacy: { url: "https://old.example.org/sse", type: "sse" },
        },
      }),
    );
    const config = loadConfigFile(path);
    expect(config.servers.map((s) => [s.name, s.transport.kind])).toEqual([
      ["filesystem", "stdio"],
      ["remote", "http"],
      ["legacy", "sse"],
    ]);
    expect(config.servers[0]?.transport).toMatchObject({ command: "npx", env: { DEBUG: "1" } });
  });

  it("loads RL-Factory's mcp_tools.pydata (a Python literal list of mcpServers blocks)", () => {
    const raw = parseConfigText(
      `[
  {'mcpServers': {'search': {'command': 'python3', 'args': ['envs/tools/search.py'], 'env': {'X': 'True'}}}},
  {'mcpServers': {'web': {'url': 'http://127.0.0.1:9000/mcp', 'type': 'streamable-http', 'disabled': False}}},
]`,
      "mcp_tools.pydata",
    );
    const config = normaliseConfig(raw);
    expect(config.servers.map((s) => s.name)).toEqual(["search", "web"]);
    // "True" inside a string stays a string.
    expect(config.servers[0]?.transport).toMatchObject({ env: { X: "True" } });
  });

  it("rejects mistakes with a message that names the field", () => {
    expect(() => normaliseConfig({ servers: { a: { command: "x", polcy: {} } } })).toThrow(ConfigError);
    expect(() => normaliseConfig({ servers: { a: { command: "x", polcy: {} } } })).toThrow(/polcy/);
    expect(() => normaliseConfig({ servers: { bad__name: { command: "x" } } })).toThrow(/no '__'/);
    expect(() => normaliseConfig({ servers: { a: { url: "not a url" } } })).toThrow(ConfigError);
    expect(() => normaliseConfig({ defaults: { deadlineMs: -1 } })).toThrow(/deadlineMs/);
    expect(() => loadConfigFile(join(dir, "missing.yaml"))).toThrow(/cannot read config/);
    expect(() => parseConfigText("a: [", "x.yaml")).toThrow(/cannot parse x.yaml/);
  });

  it("reads API keys from the environment variable it names", () => {
    process.env.RLF_TEST_KEYS = "key-number-one, key-number-two";
    expect(normaliseConfig({ auth: { apiKeysEnv: "RLF_TEST_KEYS" } }).apiKeys).toEqual([
      "key-number-one",
      "key-number-two",
    ]);
    expect(() => normaliseConfig({ auth: { apiKeysEnv: "RLF_TEST_UNSET_VAR" } })).toThrow(/not set/);
  });
});

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
  deadline_ms: 10000
  retry: { max_attempts: 5 }
servers:
  search:
    command: node
    args: [server.js, --stdio]
    cwd: tools
    include: [search]
    policy:
      bulkhead: { max_concurrent: 8 }
    tools:
      search: { cache: true, cache_ttl_ms: 1000 }
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
        "apiKeysEnv": undefined,
        "cache": {
          "backend": "memory",
          "keyPrefix": "rlf:cache:v1:",
          "maxBytes": 268435456,
          "maxEntries": 10000,
          "redisUrl": "redis://127.0.0.1:6379",
        },
        "callLog": {
          "maxCallsPerTrajectory": 256,
          "maxTrajectories": 10000,
          "ttlMs": 3600000,
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
              "maxArgumentDepth": 64,
              "maxDeadlineMs": 300000,
              "maxImageBytes": 1048576,
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
              "episodes": {
                "idleTimeoutMs": 600000,
                "maxLive": 1024,
                "maxTtlMs": 3600000,
              },
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
              "maxArgumentDepth": 64,
              "maxDeadlineMs": 300000,
              "maxImageBytes": 1048576,
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
              "episodes": {
                "idleTimeoutMs": 600000,
                "maxLive": 1024,
                "maxTtlMs": 3600000,
              },
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
    expect(() => normaliseConfig({ defaults: { deadline_ms: -1 } })).toThrow(/defaults\.deadline_ms/);
    expect(() => loadConfigFile(join(dir, "missing.yaml"))).toThrow(
      /cannot read gateway config .*missing\.yaml/,
    );
    const bad = write("bad.yaml", "servers:\n  a: { command: x, policy: { retry: { max_attempts: 0 } } }\n");
    expect(() => loadConfigFile(bad)).toThrow(`invalid gateway config ${bad}`);
    expect(() => loadConfigFile(bad)).toThrow(/servers\.a\.policy\.retry\.max_attempts/);
    expect(() => parseConfigText("a: [", "x.yaml")).toThrow(/cannot parse x.yaml/);
  });

  it("reads API keys from the environment variable it names", () => {
    const config = normaliseConfig(
      { auth: { api_keys: ["key-in-the-file"], api_keys_env: "RLF_TEST_KEYS" } },
      dir,
      {
        env: { RLF_TEST_KEYS: " key-number-one, ,key-number-two ," },
      },
    );
    expect(config.apiKeys).toEqual(["key-in-the-file", "key-number-one", "key-number-two"]);
    expect(config.apiKeysEnv).toEqual({ name: "RLF_TEST_KEYS", count: 2 });
    expect(normaliseConfig({}).apiKeys).toEqual([]);
  });
});

describe("gateway config: auth fails closed", () => {
  const withEnv = (value: string | undefined) =>
    normaliseConfig({ auth: { api_keys_env: "RLF_TEST_KEYS" } }, dir, {
      env: value === undefined ? {} : { RLF_TEST_KEYS: value },
    });
  const HOW =
    "(set it to a comma-separated list of API keys of at least 8 characters, or remove auth.api_keys_env)";

  it.each([
    ["unset", undefined, "is not set"],
    ["empty", "", "is empty"],
    ["blank", "   ", "is empty"],
    ["only commas and blanks", " , ", "holds no API key, only commas and blanks"],
  ])("refuses a variable that is %s, naming it", (_, value, what) => {
    expect(() => withEnv(value)).toThrow(ConfigError);
    expect(() => withEnv(value)).toThrow(`auth.api_keys_env: RLF_TEST_KEYS ${what} ${HOW}`);
  });

  it("refuses a key from the environment shorter than the config's minimum, by position, never printing it", () => {
    const refusal = (value: string) => {
      try {
        withEnv(value);
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
      throw new Error(`${JSON.stringify(value)} was accepted`);
    };
    expect(refusal("Q")).toBe(`auth.api_keys_env: RLF_TEST_KEYS entry 1 of 1 is 1 character long ${HOW}`);
    const message = refusal("long-enough-key-1,, 7chars ");
    expect(message).toBe(`auth.api_keys_env: RLF_TEST_KEYS entry 3 of 3 is 6 characters long ${HOW}`);
    expect(message).not.toContain("7chars");
    // 8 characters is the minimum, in the file as in the environment
    expect(withEnv("12345678").apiKeys).toEqual(["12345678"]);
    expect(() => normaliseConfig({ auth: { api_keys: ["1234567"] } })).toThrow(
      /an API key needs at least 8 characters\s+→ at auth\.api_keys\[0\]/,
    );
  });
});

describe("gateway config: camelCase keys are refused", () => {
  const snake = `
grpc: { max_message_bytes: 1048576 }
auth: { api_keys: [key-number-one] }
cache: { backend: redis, redis_url: "redis://127.0.0.1:6390", key_prefix: "t:", max_entries: 5, max_bytes: 4096 }
max_batch_size: 16
defaults:
  deadline_ms: 10000
  max_deadline_ms: 20000
  retry: { max_attempts: 5, initial_delay_ms: 2, max_delay_ms: 9 }
  breaker: { consecutive_failures: 2, half_open_after_ms: 700 }
  reconnect: { initial_delay_ms: 10, max_delay_ms: 90 }
  connect_timeout_ms: 1000
servers:
  search:
    command: node
    env: { maxBytes: "kept as the user wrote it" }
    policy:
      bulkhead: { max_concurrent: 8, max_queue: 3 }
      max_output_bytes: 2048
    tools:
      search: { cache: true, cache_ttl_ms: 1000, max_argument_bytes: 512 }
`;
  // every snake_case key (22 of them) spelled in camelCase
  const camel = snake.replaceAll(
    /\b([a-z]+(?:_[a-z]+)+):/g,
    (_, key: string) => `${key.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())}:`,
  );

  it("snake_case loads; the same config in camelCase is refused, one line per key naming its snake_case", () => {
    const fromSnake = loadConfigFile(write("snake.yaml", snake));
    expect(fromSnake.maxBatchSize).toBe(16);
    expect(fromSnake.servers[0]?.upstream.bulkhead).toEqual({ maxConcurrent: 8, maxQueue: 3 });
    expect(fromSnake.servers[0]?.toolOverrides.search).toEqual({
      cache: true,
      cacheTtlMs: 1000,
      maxArgumentBytes: 512,
    });
    expect(fromSnake.servers[0]?.transport).toMatchObject({ env: { maxBytes: "kept as the user wrote it" } });

    expect(camel).toContain("deadlineMs: 10000");
    const path = write("camel.yaml", camel);
    let message = "";
    try {
      loadConfigFile(path);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    expect(message.startsWith(`invalid gateway config ${path}: `)).toBe(true);
    const lines = message.slice(`invalid gateway config ${path}: `.length).split("; ");
    expect(lines).toContain('unknown key "deadlineMs" in defaults: use "deadline_ms"');
    expect(lines).toContain('unknown key "maxQueue" in servers.search.policy.bulkhead: use "max_queue"');
    expect(lines).toContain('unknown key "cacheTtlMs" in servers.search.tools.search: use "cache_ttl_ms"');
    expect(lines).toContain('unknown key "maxBatchSize" at the top level: use "max_batch_size"');
    // every camelCase key once (the user's own env name `maxBytes` is not one of them)
    expect(lines).toHaveLength(22);
    for (const line of lines)
      expect(line).toMatch(/^unknown key "[a-zA-Z]+" (in [\w.]+|at the top level): use "[a-z_]+"$/);
  });

  it("names a camelCase key in an object the caller built, e.g. a server's policy", () => {
    const config = { servers: { search: { command: "node", policy: { maxConcurrency: 4 } } } };
    expect(() => normaliseConfig(config, dir)).toThrow(
      'invalid gateway config: unknown key "maxConcurrency" in servers.search.policy: use "max_concurrency"',
    );
  });

  it("reads camelCase keys of other clients' mcpServers blocks as they spell them", () => {
    const config = normaliseConfig(
      { mcpServers: { search: { command: "node", autoApprove: ["search"] } } },
      dir,
    );
    expect(config.servers.map((s) => s.name)).toEqual(["search"]);
  });
});

describe("gateway config: one process per episode (a server entry's episodes:)", () => {
  const server = (episodes: unknown, extra: Record<string, unknown> = {}) =>
    normaliseConfig(
      { servers: { memory: { command: "node", args: ["memory.js"], episodes, ...extra } } },
      dir,
    ).servers[0]?.isolation;

  it("fills the defaults: 1 warm, at most 64, no workdir, fork refused, no snapshot", () => {
    expect(server({ isolate: "process" })).toEqual({
      warm: 1,
      max: 64,
      workdir: { kind: "none" },
      fork: "refuse",
      fixedArguments: {},
      snapshot: undefined,
    });
  });

  it("reads pool, workdir (a copy resolved against the config's directory), fork and snapshot", () => {
    expect(
      server(
        {
          isolate: "process",
          pool: { warm: 0, max: 4 },
          workdir: { copy: "data/shop.db" },
          fork: "replay",
          snapshot: { tool: "read_query", arguments: { query: "select * from orders" } },
        },
        { args: ["--db-path", "{workdir}/shop.db"] },
      ),
    ).toEqual({
      warm: 0,
      max: 4,
      workdir: { kind: "copy", from: join(dir, "data/shop.db") },
      fork: "replay",
      fixedArguments: {},
      snapshot: { tool: "read_query", arguments: { query: "select * from orders" } },
    });
  });

  it("refuses warm above max, {workdir} without a workdir, unknown keys and other isolation kinds", () => {
    expect(() => server({ isolate: "process", pool: { warm: 3, max: 2 } })).toThrow(
      "episodes.pool.warm (3) is more than pool.max (2)",
    );
    expect(() => server({ isolate: "process" }, { args: ["{workdir}"] })).toThrow(
      "{workdir} is used but episodes.workdir is not set",
    );
    expect(() => server({ isolate: "process", fixed_arguments: { repo_path: "{workdir}/repo" } })).toThrow(
      "{workdir} is used but episodes.workdir is not set",
    );
    expect(() => server({ isolate: "process", forks: "replay" })).toThrow(ConfigError);
    expect(() => server({ isolate: "container" })).toThrow(ConfigError);
    expect(() => server({ isolate: "process", fork: "sometimes" })).toThrow(ConfigError);
  });

  it("keeps a cwd that starts at {workdir} for each instance to resolve", () => {
    const config = normaliseConfig(
      {
        servers: {
          fs: { command: "node", cwd: "{workdir}/repo", episodes: { isolate: "process", workdir: "temp" } },
        },
      },
      dir,
    );
    expect(config.servers[0]?.transport).toMatchObject({ cwd: "{workdir}/repo" });
  });
});

describe("gateway config: agent servers (kind: agent)", () => {
  const endpoint = { base_url: "http://127.0.0.1:9/v1", model: "m" };
  const ask = (extra: Record<string, unknown> = {}) => ({
    input_schema: { type: "object", properties: { q: { type: "string" } } },
    messages: [{ role: "user", content: "{{q}}" }],
    tools: ["search__search"],
    ...extra,
  });
  const agent = (tools: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
    kind: "agent",
    endpoint,
    agent_tools: tools,
    ...more,
  });

  it("fills the defaults: 8 steps, no token budget, no transcript, no trajectory budget", () => {
    const [server] = normaliseConfig({ servers: { research: agent({ ask: ask() }) } }).servers;
    expect(server?.transport).toMatchObject({
      kind: "agent",
      endpoint: { baseUrl: endpoint.base_url, model: "m" },
      budget: { calls: undefined, tokens: undefined },
      tools: [
        { name: "ask", tools: ["search__search"], maxSteps: 8, tokenBudget: undefined, transcript: false },
      ],
    });
  });

  it("refuses an agent tool that lists its own server's tools, or another agent's without allow_agent_tools", () => {
    expect(() =>
      normaliseConfig({ servers: { research: agent({ ask: ask({ tools: ["research__ask"] }) }) } }),
    ).toThrow(/lists research__ask, a tool of its own server/);
    const other = agent({ deep: ask() });
    expect(() =>
      normaliseConfig({
        servers: { research: agent({ ask: ask({ tools: ["other__deep"] }) }), other },
      }),
    ).toThrow(/other__deep, an agent tool: set allow_agent_tools: true/);
    const allowed = normaliseConfig({
      servers: { research: agent({ ask: ask({ tools: ["other__deep"], allow_agent_tools: true }) }), other },
    });
    expect(allowed.servers).toHaveLength(2);
  });

  it("refuses a placeholder that is not an argument, an empty tool list and unknown keys", () => {
    expect(() =>
      normaliseConfig({
        servers: { research: agent({ ask: ask({ messages: [{ role: "user", content: "{{x}}" }] }) }) },
      }),
    ).toThrow(/uses \{\{x\}\}/);
    expect(() => normaliseConfig({ servers: { research: agent({ ask: ask({ tools: [] }) }) } })).toThrow(
      ConfigError,
    );
    expect(() => normaliseConfig({ servers: { research: agent({ ask: ask({ maxSteps: 3 }) }) } })).toThrow(
      /use "max_steps"/,
    );
  });
});

// docs/environments.md states the environment-server contract and the gateway's episode settings; each
// is checked against the code that defines it, and the TypeScript example stays short.
import { DEFAULT_UPSTREAM_POLICY, normaliseConfig } from "@rlfactory/gateway";
import { EPISODE_HANDLE_ARG, RESERVED_EPISODE_TOOLS } from "@rlfactory/proto/environment-contract";
import { codeSpans, fencedBlockAfter, markdownTable, readDoc } from "@rlfactory/test-support/markdown";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";

const doc = readDoc("docs/environments.md");

describe("docs/environments.md", () => {
  it("names the reserved tools and the handle argument the code uses", () => {
    const tools = markdownTable(doc, "tool").flatMap((r) => codeSpans(r.tool!));
    expect(tools).toEqual([...RESERVED_EPISODE_TOOLS]);
    for (const row of markdownTable(doc, "tool").slice(1))
      expect(row.arguments).toContain(`${EPISODE_HANDLE_ARG}: HANDLE`);
  });

  it("gives the episode defaults the gateway uses", () => {
    const rows = markdownTable(doc, "setting").map((r) => [
      codeSpans(r.setting!)[0],
      Number(codeSpans(r.default!)[0]),
    ]);
    const { maxLive, idleTimeoutMs, maxTtlMs } = DEFAULT_UPSTREAM_POLICY.episodes;
    expect(Object.fromEntries(rows)).toEqual({
      max_live: maxLive,
      idle_timeout_ms: idleTimeoutMs,
      max_ttl_ms: maxTtlMs,
    });
  });

  it("gives the per-episode-instance defaults the gateway uses, and its example config loads", () => {
    const rows = Object.fromEntries(
      markdownTable(doc, "key").map((r) => [codeSpans(r.key!)[0], codeSpans(r.default!)[0] ?? r.default]),
    );
    const defaults = normaliseConfig({
      servers: { s: { command: "node", episodes: { isolate: "process" } } },
    }).servers[0]?.isolation;
    expect(rows).toEqual({
      isolate: "(required)",
      "pool.warm": String(defaults?.warm),
      "pool.max": String(defaults?.max),
      workdir: defaults?.workdir.kind,
      fork: defaults?.fork,
      fixed_arguments: Object.keys(defaults?.fixedArguments ?? {}).length === 0 ? "none" : "?",
      snapshot: defaults?.snapshot === undefined ? "none" : "?",
    });
    const example = parseYaml(
      fencedBlockAfter(doc, "## Any stateful MCP server: per-episode instances", "yaml"),
    ) as Record<string, unknown>;
    const servers = normaliseConfig(example, "/srv").servers;
    expect(servers.map((s) => [s.name, s.isolation?.fork, s.isolation?.workdir.kind])).toEqual([
      ["memory", "replay", "temp"],
      ["files", "refuse", "temp"],
      ["git", "replay", "copy"],
      ["shop", "refuse", "copy"],
    ]);
  });

  it("keeps the defineEnvironment example within 40 lines", () => {
    const example = fencedBlockAfter(doc, "## Writing an environment in TypeScript", "ts");
    expect(example).toContain("defineEnvironment");
    expect(example.trimEnd().split("\n").length).toBeLessThanOrEqual(40);
  });
});

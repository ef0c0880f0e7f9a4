// docs/environments.md states the environment-server contract and the gateway's episode settings; each
// is checked against the code that defines it, and the TypeScript example stays short. Its "Bring your
// environment" table is held to the CLI (each `rlf ...` command's own --help, run as a user runs it),
// the gateway config, the reward registry and the files and sections it links.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_UPSTREAM_POLICY, normaliseConfig } from "@rlfactory/gateway";
import { EPISODE_HANDLE_ARG, RESERVED_EPISODE_TOOLS } from "@rlfactory/proto/environment-contract";
import { REWARD_COMPONENT_TYPES } from "@rlfactory/rollout";
import { ROOT } from "@rlfactory/test-support/gateway-harness";
import { codeSpans, fencedBlockAfter, markdownTable, readDoc } from "@rlfactory/test-support/markdown";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";

const doc = readDoc("docs/environments.md");

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchors(markdown: string): Set<string> {
  return new Set(
    markdown
      .split("\n")
      .filter((l) => /^#{1,6} /.test(l))
      .map((l) =>
        l
          .replace(/^#+ /, "")
          .toLowerCase()
          .replace(/[^\p{L}\p{N} _-]/gu, "")
          .replaceAll(" ", "-"),
      ),
  );
}

/** The targets of a cell's Markdown links, `[text](target)`. */
function links(cell: string): string[] {
  return [...cell.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!);
}

/** `rlf env gym --id X --stdio` → the command's words (`env gym`) and its flags (`--id`, `--stdio`). */
function commandParts(command: string): { words: string[]; flags: string[] } {
  const tokens = command.split(/\s+/).slice(1);
  const end = tokens.findIndex((t) => t.startsWith("-") || /^[A-Z]/.test(t));
  return {
    words: end < 0 ? tokens : tokens.slice(0, end),
    flags: tokens.filter((t) => t.startsWith("--")),
  };
}

const bring = markdownTable(doc, "environment");

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

  describe("the Bring your environment table", () => {
    it("has one row per kind of environment the issue names, each with its command", () => {
      expect(bring.map((r) => r.environment)).toEqual([
        "MCP server, stateless",
        "MCP server, stateful (per-episode instance)",
        "TypeScript",
        "Python class",
        "OpenEnv",
        "verifiers",
        "Gymnasium",
        "TextArena",
        "BFCL multi-turn",
        "FTRL bundle",
      ]);
      for (const row of bring) {
        expect(codeSpans(row.command!).length, row.environment).toBeGreaterThan(0);
        for (const column of ["fork", "snapshot", "reward", "details", "tested by"])
          expect(row[column], `${row.environment}: ${column}`).not.toBe("");
      }
    });

    it("gives commands the CLI has, with flags its --help names", () => {
      const commands = bring.flatMap((r) => codeSpans(r.command!).filter((c) => c.startsWith("rlf ")));
      expect(commands.length).toBe(10);
      for (const command of commands) {
        const { words, flags } = commandParts(command);
        // an unknown subcommand prints its group's help (exit 0): the usage line must be the command's own
        const help = execFileSync(
          process.execPath,
          [join(ROOT, "services/cli/bin/rlf.js"), ...words, "--help"],
          {
            encoding: "utf8",
          },
        );
        expect(help.split("\n")[0], command).toMatch(new RegExp(`^rlf ${words.join(" ")}( |$)`));
        for (const flag of flags) expect(help, `${command}: ${flag}`).toContain(flag);
      }
    });

    it("gives a per-episode-instance config the gateway loads as one", () => {
      const snippet = bring.flatMap((r) => codeSpans(r.command!)).find((c) => c.startsWith("episodes:"));
      const entry = parseYaml(`{${snippet}}`) as Record<string, unknown>;
      const [server] = normaliseConfig({ servers: { s: { command: "node", ...entry } } }).servers;
      expect(server?.isolation?.fork).toBe("refuse");
    });

    it("names only reward components the rollout registers", () => {
      const named = bring.flatMap((r) => codeSpans(r.reward!));
      expect(named.length).toBeGreaterThan(0);
      for (const name of named) expect(REWARD_COMPONENT_TYPES, name).toContain(name);
      expect(new Set(named)).toEqual(
        new Set(
          ["exact_match", "f1", "judge", "tool_verified", "state_match", "env_reward"].concat([
            "bfcl_state",
            "bfcl_response",
            "task_completion",
            "db_state",
            "ftrl_solve",
          ]),
        ),
      );
    });

    it("links sections and end-to-end test files that exist", () => {
      for (const row of bring) {
        for (const target of links(`${row.details} ${row["tested by"]}`)) {
          const [path = "", anchor] = target.split("#");
          const file = join("docs", path || "environments.md");
          expect(existsSync(join(ROOT, file)), `${row.environment}: ${target}`).toBe(true);
          if (anchor !== undefined) expect(anchors(readDoc(file))).toContain(anchor);
          if (path.includes("test/")) expect(path, row.environment).toMatch(/\.e2e\.test\.ts$/);
        }
      }
      const tests = bring.flatMap((r) => links(r["tested by"]!));
      expect(tests.length).toBe(18);
    });
  });
});

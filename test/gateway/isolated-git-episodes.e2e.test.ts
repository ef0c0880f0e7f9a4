// Episodes on PyPI `mcp-server-git` (2026.10.19, as installed by `npm run setup:environments` into
// services/environments/.venv-mcp-git), unchanged, one process per episode (`episodes: {isolate: process,
// workdir: {copy: REPO}}`, docs/environments.md): each episode gets its own copy of a seed repository
// holding one uncommitted file; what one episode commits is in its own log and status, never in the
// other's; a fork by replay repeats the parent's calls on a fresh copy.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type InProcessGateway,
  ROOT,
  startTestGateway,
  tempDir,
} from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SERVER = join(ROOT, "services/environments/.venv-mcp-git/bin/mcp-server-git");

function haveMcpServerGit(): boolean {
  if (existsSync(SERVER)) return true;
  const message = "mcp-server-git episodes: it is not installed (run npm run setup:environments)";
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

describe.skipIf(!haveMcpServerGit())("episodes on mcp-server-git: each its own repository copy", () => {
  let gw: InProcessGateway;

  beforeAll(async () => {
    const repo = join(tempDir("rlf-git-seed-"), "repo");
    mkdirSync(repo);
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=seed", "-c", "user.email=seed@example.invalid", ...args], {
        cwd: repo,
      });
    git("init", "-q", "-b", "main");
    writeFileSync(join(repo, "README"), "seed\n");
    git("add", "README");
    git("commit", "-q", "-m", "seed commit");
    writeFileSync(join(repo, "notes.txt"), "uncommitted\n");
    gw = await startTestGateway({
      servers: {
        git: {
          command: SERVER,
          args: ["--repository", "{workdir}/repo"],
          env: { GIT_AUTHOR_NAME: "episode", GIT_AUTHOR_EMAIL: "e@example.invalid" },
          episodes: {
            isolate: "process",
            workdir: { copy: repo },
            pool: { warm: 0 },
            fixed_arguments: { repo_path: "{workdir}/repo" },
            fork: "replay",
            snapshot: { tool: "git_status", arguments: { repo_path: "{workdir}/repo" } },
          },
        },
      },
    });
  }, 120_000);
  afterAll(() => gw?.stop());

  const call = async (episodeId: string, tool: string, args: Record<string, unknown> = {}) => {
    const r = await gw.client.callTool({
      name: `git__${tool}`,
      arguments_json: JSON.stringify(args),
      episode_id: episodeId,
    });
    expect([r.error_code, r.is_error], r.error_message).toEqual(["OK", false]);
    return r.content.map((c) => c.text?.text ?? "").join("\n");
  };

  it("hides repo_path from the model: the gateway sets each instance's own", async () => {
    const tools = await gw.client.listTools("git");
    const status = tools.find((t) => t.name === "git__git_status");
    expect(JSON.parse(status!.input_schema_json).properties ?? {}).not.toHaveProperty("repo_path");
  });

  it("two episodes: each commits in its own copy and sees only its own commits and status", async () => {
    const [a, b] = [await gw.client.startEpisode("git"), await gw.client.startEpisode("git")];
    for (const id of [a, b]) expect(await call(id, "git_status")).toContain("notes.txt");

    await call(a, "git_add", { files: ["notes.txt"] });
    await call(a, "git_commit", { message: "episode A's commit" });
    expect(await call(a, "git_log")).toContain("episode A's commit");
    expect(await call(a, "git_status")).not.toContain("notes.txt");

    const logB = await call(b, "git_log");
    expect(logB).toContain("seed commit");
    expect(logB).not.toContain("episode A's commit");
    expect(await call(b, "git_status")).toContain("notes.txt");

    await call(b, "git_create_branch", { branch_name: "only-b" });
    expect(await call(b, "git_branch", { branch_type: "local" })).toContain("only-b");
    expect(await call(a, "git_branch", { branch_type: "local" })).not.toContain("only-b");

    const [fork] = await gw.client.forkEpisode(a, 1);
    expect(await call(fork!, "git_log")).toContain("episode A's commit");
    expect(JSON.stringify(await gw.client.snapshotEpisode(b))).toContain("notes.txt");
    for (const id of [a, b, fork!]) await gw.client.endEpisode(id);
  });
});

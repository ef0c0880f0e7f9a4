// docs/agents.md lists the environment an agent run gets, the flags of `rlf rollout agent` and how a
// trajectory ends; each is checked against the code and a real run (an agent that writes down its
// environment), so the doc cannot drift.
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { toolCallRecordSchema } from "@rlfactory/contracts";
import { EPISODE_QUERY, TRAJECTORY_QUERY } from "@rlfactory/gateway";
import { AGENT_ENVIRONMENT_VARIABLES, boundMcpUrl } from "@rlfactory/rollout";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import {
  type InProcessGateway,
  RLF,
  ROOT,
  startTestGateway,
  tempDir,
} from "@rlfactory/test-support/gateway-harness";
import { codeSpans, markdownTable, readDoc } from "@rlfactory/test-support/markdown";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const doc = readDoc("docs/agents.md");
const variables = markdownTable(doc, "variable").map((r) => codeSpans(r.variable!)[0]!);

describe("docs/agents.md", () => {
  let gw: InProcessGateway;
  let sim: SimulatedLlm;
  beforeAll(async () => {
    [gw, sim] = await Promise.all([
      startTestGateway({ servers: {} }),
      startSimulatedLlm({ policy: "converse", seed: 1 }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await sim?.close();
    await gw?.stop();
  });

  it("lists the environment variables an agent gets, and a real run sets every one", async () => {
    expect(variables).toEqual([...AGENT_ENVIRONMENT_VARIABLES]);
    const dir = tempDir("rlf-agents-doc-");
    const seen = join(dir, "env.json");
    // the agent: writes down its environment and stdin, asks the model once, prints an answer
    writeFileSync(
      join(dir, "agent.mjs"),
      [
        'import { readFileSync, writeFileSync } from "node:fs";',
        "const stdin = readFileSync(0, 'utf8');",
        `const names = ${JSON.stringify(variables)};`,
        `writeFileSync(${JSON.stringify(seen)}, JSON.stringify({ stdin, env: Object.fromEntries(names.map((n) => [n, process.env[n]])) }));`,
        "const r = await fetch(process.env.OPENAI_BASE_URL + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: process.env.RLF_MODEL, messages: [{ role: 'user', content: stdin }] }) });",
        "if (!r.ok) process.exit(2);",
        "console.log('hello');",
      ].join("\n"),
    );
    writeFileSync(
      join(dir, "tasks.jsonl"),
      `${JSON.stringify({ id: "t1", data_source: "doc", prompt: [{ role: "user", content: "answer: hello" }], ground_truth: "hello", extra_info: {} })}\n`,
    );
    writeFileSync(
      join(dir, "rollout.yaml"),
      [
        `inference: { engine: vllm, urls: [${sim.url}] }`,
        `gateway: { address: "${gw.gateway.grpcAddress}" }`,
        "dataset: { path: tasks.jsonl }",
        "rollout: { group_size: 1 }",
        "reward: { components: [{ type: exact_match }] }",
      ].join("\n"),
    );
    const mcp = `${gw.gateway.adminUrl}/mcp`;
    const out = join(dir, "out");
    await promisify(execFile)(
      process.execPath,
      [RLF, "rollout", "agent", "--config", join(dir, "rollout.yaml"), "--out", out, "--no-progress"].concat([
        "--agent",
        `${process.execPath} ${join(dir, "agent.mjs")}`,
        "--gateway-mcp",
        mcp,
      ]),
      { cwd: ROOT, timeout: 60_000 },
    );
    const { stdin, env } = JSON.parse(readFileSync(seen, "utf8")) as {
      stdin: string;
      env: Record<string, string | undefined>;
    };
    for (const name of variables) expect(env[name], name).toBeTruthy();
    expect(env.OPENAI_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/t\/[^/]+\/v1$/);
    expect(env.RLF_PROMPT).toBe("answer: hello");
    expect(stdin).toBe("answer: hello");
    expect(JSON.parse(env.RLF_TASK!)).toMatchObject({ id: "t1" });
    expect(env.RLF_TRAJECTORY_ID).toBe("t1#r1/0");
    const url = new URL(env.RLF_MCP_URL!);
    expect(`${url.origin}${url.pathname}`).toBe(mcp);
    expect(url.searchParams.get(TRAJECTORY_QUERY)).toBe("t1#r1/0");
    const [t] = readFileSync(join(out, "trajectories.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect([t.status, t.status_reason, t.reward]).toEqual(["completed", "agent_exited", 1]);
  }, 90_000);

  it("says where each field of a tool call comes from in an agent run, for every field of the record", () => {
    const fields = markdownTable(doc, "field").map((r) => codeSpans(r.field!)[0]!);
    expect(fields).toEqual(Object.keys(toolCallRecordSchema.shape));
  });

  it("names the MCP URL's query parameters as the gateway reads them", () => {
    const url = new URL(boundMcpUrl("http://127.0.0.1:8080/mcp", "T", "E"));
    expect([...url.searchParams.keys()].sort()).toEqual([EPISODE_QUERY, TRAJECTORY_QUERY].sort());
    expect(doc).toContain(`?${TRAJECTORY_QUERY}=T&${EPISODE_QUERY}=E`);
  });

  it("names every flag of `rlf rollout agent --help`", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [RLF, "rollout", "agent", "--help"], {
      cwd: ROOT,
    });
    const usage = stdout.split("\n").find((l) => l.includes("rollout agent --config")) ?? "";
    const flags = [...usage.matchAll(/--[a-z-]+/g)].map((m) => m[0]);
    expect(flags.length).toBeGreaterThan(5);
    const flagsSection = doc.slice(doc.indexOf("Flags:"), doc.indexOf("## What the agent gets"));
    const documented = [...flagsSection.matchAll(/`(--[a-z-]+)/g)].map((m) => m[1]);
    expect(new Set(documented)).toEqual(new Set(flags.filter((f) => f !== "--config")));
  }, 30_000);
});

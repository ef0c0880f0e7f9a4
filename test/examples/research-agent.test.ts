// The shipped research-agent config (examples/research-agent/gateway.yaml), run as it is but for its
// ports: the real search tool server (stdio child), `writer` and `research` on two simulated inference
// servers (OpenAI chat; `converse` echoes the summarise prompt, `research` is the scripted sub-agent),
// started with the flags examples/research-agent/README.md gives. One call of `research__ask` searches,
// summarises and cites; its answer is the result's only text, its transcript the structured content,
// its usage the sub-agent's own model tokens.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseConfigText } from "@rlfactory/gateway";
import { qwen3Tokenizer } from "@rlfactory/rollout";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { type InProcessGateway, ROOT, startTestGateway } from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const DIR = join(ROOT, "examples/research-agent");
const QUESTION = "Which film did Scott Derrickson direct in 2016?";

let writer: SimulatedLlm;
let researcher: SimulatedLlm;
let gateway: InProcessGateway;

/** `--flag value` pairs of the README's `rlf-sim llm` line that serves `port`. */
function simFlags(port: number): Record<string, string> {
  const readme = readFileSync(join(DIR, "README.md"), "utf8");
  const line = readme
    .split("\n")
    .find((l) => l.startsWith("npx rlf-sim llm") && l.includes(`--port ${port}`));
  expect(line, `README serves port ${port}`).toBeDefined();
  const words = line!.split(/\s+/).slice(3);
  const flags: Record<string, string> = {};
  for (let i = 0; i < words.length; i += 2) flags[words[i]!.replace(/^--/, "")] = words[i + 1]!;
  return flags;
}

beforeAll(async () => {
  const raw = parseConfigText(readFileSync(join(DIR, "gateway.yaml"), "utf8"), "gateway.yaml") as {
    servers: Record<string, { endpoint?: { base_url: string }; cwd?: string }>;
  };
  const w = simFlags(9101);
  const r = simFlags(9102);
  [writer, researcher] = await Promise.all([
    startSimulatedLlm({ policy: w.policy!, seed: 1 }),
    startSimulatedLlm({
      policy: r.policy!,
      seed: 2,
      policyOptions: { tool: r.tool, summarise: r.summarise },
    }),
  ]);
  const { servers } = raw;
  expect(servers.writer?.endpoint?.base_url).toBe("http://127.0.0.1:9101/v1");
  expect(servers.research?.endpoint?.base_url).toBe("http://127.0.0.1:9102/v1");
  servers.writer!.endpoint!.base_url = `${writer.url}/v1`;
  servers.research!.endpoint!.base_url = `${researcher.url}/v1`;
  servers.search!.cwd = ROOT; // the file's `../..`, from where the file is
  gateway = await startTestGateway({ ...raw, grpc: { port: 0 }, admin: { port: 0 } });
}, 90_000);

afterAll(async () => {
  await gateway?.stop();
  await Promise.all([writer?.close(), researcher?.close()]);
});

describe("examples/research-agent", () => {
  it("answers research__ask with a summary of the searched passages and their numbered sources", async () => {
    const r = await gateway.client.callTool({
      name: "research__ask",
      arguments_json: JSON.stringify({ question: QUESTION }),
      trajectory_id: "t-research",
    });
    expect([r.error_code, r.is_error], r.error_message).toEqual(["OK", false]);
    expect(r.content).toHaveLength(1);
    const answer = r.content[0]?.text?.text ?? "";
    // the summary is the writer's (converse echoes its prompt), the sources the search's titles
    const [summary, sources] = answer.split("\n\nSources:\n");
    expect(summary).toMatch(/^You said: Summarise: \S/);
    const titles = sources?.split("\n") ?? [];
    expect(titles.length).toBeGreaterThan(0);
    for (const [i, t] of titles.entries()) expect(t).toMatch(new RegExp(`^\\[${i + 1}\\] ".+"$`));
    expect(answer).toContain("Doctor Strange");

    // three model calls of the sub-agent: search, summarise, answer; one of the writer
    expect(researcher.requests).toHaveLength(3);
    expect(writer.requests).toHaveLength(1);
    const tokenizer = await qwen3Tokenizer();
    const prompt = (i: number) => tokenizer.decode(researcher.requests[i]!.promptIds);
    expect(prompt(0)).toContain('"name": "search__search"'); // the tools offered, in the chat template
    expect(prompt(0)).toContain('"name": "writer__summarise"');
    expect(prompt(0)).not.toContain("research__ask"); // never itself

    // usage: the sub-agent's own tokens, over its three calls
    const prompts = researcher.requests.reduce((n, q) => n + q.promptIds.length, 0);
    expect(r.usage).toMatchObject({ prompt_tokens: prompts, model: researcher.model });
    expect(r.usage?.completion_tokens).toBeGreaterThan(0);

    // the transcript: system, user, two rounds of assistant call + tool answer, the final answer
    const transcript = JSON.parse(r.structured_content_json) as {
      steps: number;
      messages: { role: string; content: string; tool_calls?: { function: { name: string } }[] }[];
    };
    expect(transcript.steps).toBe(3);
    expect(transcript.messages.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(transcript.messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.function.name)).toEqual([
      "search__search",
      "writer__summarise",
    ]);
    expect(transcript.messages.at(-1)?.content).toBe(answer);
  });
});

// The --agent part of `npm run bench -- real-inference` against the simulated inference server (the bench
// itself needs a real vLLM, which CI does not have): an agent program nobody here wrote (the OpenAI Agents
// SDK example, unchanged, its tools through the gateway's /mcp) on the bounded HotpotQA config, through
// the recording proxy; every sampled turn of every trajectory must be one answer of the server.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { ROOT } from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRollout, DEFAULT_REAL_INFERENCE, realInferenceBenchArgs } from "./real-inference.ts";

const PYTHON = join(ROOT, "services/engines/.venv-agents/bin/python");
const AGENT = `${PYTHON} ${join(ROOT, "examples/agents/openai_agents_mcp.py")}`;

/** The frameworks' venv (`npm run setup:engines`): required in CI, else the agent run is skipped. */
function haveAgentsVenv(): boolean {
  if (existsSync(PYTHON)) return true;
  if (process.env.CI) throw new Error(`${PYTHON} is missing: run npm run setup:engines`);
  console.warn("skipping the agent run: run npm run setup:engines");
  return false;
}

let llm: SimulatedLlm;

beforeAll(async () => {
  llm = await startSimulatedLlm({ policy: "search-then-answer", seed: 2 });
});

afterAll(async () => {
  await llm?.close();
});

describe("npm run bench -- real-inference --agent CMD", () => {
  it("takes the agent's command line and its deadline", () => {
    const { options } = realInferenceBenchArgs([
      "--vllm",
      "http://127.0.0.1:8000/v1",
      "--agent",
      "python agent.py",
      "--agent-deadline-ms",
      "5000",
    ]);
    expect(options).toMatchObject({ agent: "python agent.py", agentDeadlineMs: 5000 });
    expect(() => realInferenceBenchArgs(["--vllm", "http://h:1", "--agent", " "])).toThrow(/usage:/);
  });

  it.runIf(haveAgentsVenv())(
    "runs the unmodified agent on the HotpotQA tasks and finds every sampled turn in what the server answered",
    async () => {
      const report = await agentRollout(
        { base: llm.url, model: "simulated", tokenizerPath: "qwen3" },
        AGENT,
        {
          ...DEFAULT_REAL_INFERENCE,
          vllm: llm.url,
          hotpotqaTasks: 2,
          groupSize: 2,
          concurrency: 4,
        },
      );
      expect(report.statuses, report.stderr_tail.join("\n")).toEqual({ completed: 4 });
      expect(report.trajectories).toBe(4);
      // search, then answer after the tool result: at least two model requests per trajectory
      expect(report.turns_checked).toBeGreaterThanOrEqual(8);
      expect(report.mismatch_examples).toEqual([]);
      expect(report.turns_matched).toBe(report.turns_checked);
      // every request the server answered belongs to a checked turn, and each extended the previous one
      expect(report.requests_unused).toBe(0);
      expect(report.prefix_divergences).toBe(0);
      expect(report.requests_by_prefix).toEqual({ start: 4, extends: report.turns_checked - 4 });
    },
    300_000,
  );
});

// The trajectory check and the recording proxy of `npm run bench -- real-inference`, against the simulated
// inference server (the bench itself needs a real vLLM, which CI does not have): the rollout engine,
// pointed at the proxy, rolls out multi-turn trajectories; the check finds every sampled turn in what the
// server answered, and reports a tampered recording or a tampered trajectory as a mismatch.
import {
  createRolloutEngine,
  type ModelTokenizer,
  parseRolloutConfig,
  qwen3Tokenizer,
  type Task,
  type ToolCaller,
  type ToolInvoker,
  type Trajectory,
} from "@rlfactory/rollout";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_REAL_INFERENCE, realInferenceBenchArgs } from "./real-inference.ts";
import { checkTrajectories, type RecordingProxy, startRecordingProxy } from "./real-inference-check.ts";

const SEARCH = {
  type: "function" as const,
  function: {
    name: "search__search",
    description: "Search passages",
    parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
  },
};

// The tool is not what is under test: a fixed passage, in the search tool's text shape.
const passages: ToolCaller & ToolInvoker = {
  callTools: async (calls) =>
    calls.map((c) => ({
      name: c.name,
      isError: false,
      errorCode: "OK",
      text: 'Doc 1(Title: "Ed Wood") Edward Davis Wood Jr. was an American filmmaker.',
      structured: null,
      latencyMs: 1,
    })),
  call: async () => ({ isError: false, errorCode: "OK", text: "", structured: null }),
};

const tasks: Task[] = ["Who directed Plan 9?", "Which film did Ed Wood make in 1959?"].map((q, i) => ({
  id: `q${i}`,
  data_source: "unit",
  prompt: [{ role: "user", content: `Answer the question. Question: ${q}` }],
  ground_truth: "Ed Wood",
  extra_info: {},
}));

let tokenizer: ModelTokenizer;
let llm: SimulatedLlm;
let proxy: RecordingProxy;
let trajectories: Trajectory[];

beforeAll(async () => {
  tokenizer = await qwen3Tokenizer();
  llm = await startSimulatedLlm({ policy: "search-then-answer", seed: 1, tokenizer });
  proxy = await startRecordingProxy(`${llm.url}/v1`);
  const config = parseRolloutConfig({
    inference: { engine: "vllm", url: proxy.url },
    gateway: { address: "127.0.0.1:1", tools: ["search__search"] },
    rollout: { group_size: 2, max_turns: 3, sampling: { temperature: 1, top_p: 1, max_tokens: 200 } },
    reward: { components: [{ type: "exact_match", weight: 1 }] },
    seed: 3,
  });
  const engine = await createRolloutEngine(config, {
    tokenizer,
    tools: [SEARCH],
    toolCaller: passages,
    toolInvoker: passages,
    warn: () => {},
  });
  trajectories = [];
  try {
    for await (const group of engine.rollout(tasks)) trajectories.push(...group.trajectories);
  } finally {
    await engine.close();
  }
});

afterAll(async () => {
  await proxy?.close();
  await llm?.close();
});

describe("the recording proxy", () => {
  it("forwards every completions request and records the prompt ids, token ids and logprobs the server answered", () => {
    // the server saw exactly the requests the proxy recorded, in the same number
    expect(proxy.completions).toHaveLength(llm.requests.length);
    const sampledTurns = trajectories.flatMap((t) => t.turns.filter((x) => x.kind === "sampled"));
    expect(proxy.completions).toHaveLength(sampledTurns.length);
    for (const r of proxy.completions) {
      expect(r.status).toBe(200);
      expect(r.prompt?.length).toBeGreaterThan(0);
      expect(r.tokenIds?.length).toBeGreaterThan(0);
      expect(r.logprobs).toHaveLength(r.tokenIds!.length);
    }
  });
});

describe("checkTrajectories", () => {
  it("matches every sampled turn of multi-turn trajectories to the server's answer to its context", () => {
    expect(trajectories).toHaveLength(4);
    // search, then answer after the tool result: at least two sampled turns each
    for (const t of trajectories) {
      expect(t.turns.filter((x) => x.kind === "sampled").length).toBeGreaterThanOrEqual(2);
      expect(t.tool_calls.length).toBeGreaterThanOrEqual(1);
    }
    const check = checkTrajectories(trajectories, proxy.completions);
    expect(check.mismatches).toEqual([]);
    expect(check.turns_checked).toBe(proxy.completions.length);
    expect(check).toMatchObject({
      trajectories: 4,
      turns_matched: check.turns_checked,
      requests: proxy.completions.length,
      requests_unused: 0,
    });
  });

  it("reports a recorded answer whose ids differ from the trajectory's turn", () => {
    const tampered = proxy.completions.map((r, i) =>
      i === 1 ? { ...r, tokenIds: r.tokenIds!.map((x, j) => (j === 2 ? x + 1 : x)) } : r,
    );
    const check = checkTrajectories(trajectories, tampered);
    expect(check.mismatches).toHaveLength(1);
    expect(check.mismatches[0]!.reason).toMatch(/sampled ids differ .*at 2:/);
    expect(check.requests_unused).toBe(0);
  });

  it("reports a logprob that differs from the server's", () => {
    const tampered = proxy.completions.map((r, i) =>
      i === 0 ? { ...r, logprobs: r.logprobs!.map((x, j) => (j === 0 ? (x ?? 0) - 0.5 : x)) } : r,
    );
    const check = checkTrajectories(trajectories, tampered);
    expect(check.mismatches.map((m) => m.reason)).toEqual([expect.stringMatching(/^logprobs differ/)]);
  });

  it("reports a turn whose context was never sent as a prompt, and a loss mask that does not cover the sampled turns", () => {
    const [first, ...rest] = trajectories;
    // an observation token changed: the next sampled turn's context is no request's prompt
    const obs = first!.turns.find((x) => x.kind === "observation")!;
    const response = [...first!.response_ids];
    response[obs.start] = response[obs.start]! + 1;
    const mask = [...first!.loss_mask];
    mask[obs.start] = 1;
    const check = checkTrajectories(
      [{ ...first!, response_ids: response, loss_mask: mask }, ...rest],
      [...proxy.completions],
    );
    const reasons = check.mismatches.map((m) => m.reason);
    expect(reasons).toContain("no request had this turn's context as its prompt");
    expect(reasons.some((r) => r.startsWith("loss_mask 1 runs"))).toBe(true);
  });
});

describe("npm run bench -- real-inference (arguments)", () => {
  it("needs --vllm, fills the defaults sized for a small CPU, and rejects unknown flags with the usage", () => {
    expect(() => realInferenceBenchArgs(["--out", "x.json"])).toThrow(/--vllm URL is required[\s\S]*usage:/);
    expect(() => realInferenceBenchArgs(["--vllm", "http://127.0.0.1:8000/v1", "--bogus", "1"])).toThrow(
      /usage: npm run bench -- real-inference/,
    );
    const { out, options } = realInferenceBenchArgs([
      "--vllm",
      "http://127.0.0.1:8000/v1",
      "--out",
      "r.json",
    ]);
    expect(out).toBe("r.json");
    expect(options).toEqual({ vllm: "http://127.0.0.1:8000/v1", ...DEFAULT_REAL_INFERENCE });
    expect(
      realInferenceBenchArgs(["--vllm", "http://h:1", "--contexts", "4", "--on-no-action", "end"]).options,
    ).toMatchObject({ contexts: 4, onNoAction: "end" });
  });
});

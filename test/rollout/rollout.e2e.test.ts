// The rollout engine end to end: the simulated inference server (vLLM protocol, real Qwen3 tokenizer,
// scripted policy) + a real gateway + the real search tool over a HotpotQA corpus (100 dev records).
// Checks the token-level contract engines rely on: ids are the sampler's, observation ids are exactly
// the chat template's suffix, logprobs line up, sampling is the same on every turn, EM is right,
// tool bodies are cut inside their wrapper, and an over-long context ends `truncated` with the
// question intact.
import { join } from "node:path";
import {
  createRolloutEngine,
  goldAnswers,
  loadTasks,
  type ModelTokenizer,
  parseRolloutConfig,
  qwen3Tokenizer,
  type RolloutConfigInput,
  renderPromptIds,
  type Task,
  type Trajectory,
} from "@rlfactory/rollout";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import {
  type InProcessGateway,
  RLF,
  startTestGateway,
  tempDir,
} from "@rlfactory/test-support/gateway-harness";
import { sharedDataPath } from "@rlfactory/test-support/shared-data";
import { buildHotpotqaCorpus } from "@rlfactory/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const HOTPOT = sharedDataPath("hotpotqa");

let tokenizer: ModelTokenizer;
let gateway: InProcessGateway;
let sim: SimulatedLlm;
let tasks: Task[];

function config(
  overrides: Partial<RolloutConfigInput["rollout"]> = {},
  llmUrl = sim.url,
): RolloutConfigInput {
  return {
    inference: { engine: "vllm", urls: [llmUrl] },
    gateway: { address: gateway.gateway.grpcAddress, tools: ["search__search"], deadline_ms: 10_000 },
    format: "hermes",
    rollout: {
      group_size: 2,
      max_turns: 4,
      max_concurrency: 16,
      max_context_tokens: 16_384,
      max_tool_response_tokens: 4096,
      sampling: { temperature: 0.7, top_p: 0.9, max_tokens: 256 },
      ...overrides,
    },
    reward: {
      components: [
        { type: "exact_match", weight: 1 },
        { type: "f1", weight: 0 },
      ],
    },
    seed: 11,
  };
}

async function rollOut(raw: RolloutConfigInput, batch: Task[]): Promise<Trajectory[]> {
  const engine = await createRolloutEngine(parseRolloutConfig(raw));
  try {
    const out: Trajectory[] = [];
    for await (const group of engine.rollout(batch)) out.push(...group.trajectories);
    return out;
  } finally {
    await engine.close();
  }
}

beforeAll(async () => {
  const dir = tempDir("rlf-rollout-e2e-");
  const corpus = join(dir, "hotpotqa-corpus.jsonl");
  await buildHotpotqaCorpus(join(HOTPOT, "hotpot_dev_distractor_first100_hf.json"), corpus);
  [tokenizer, gateway, sim, tasks] = await Promise.all([
    qwen3Tokenizer(),
    startTestGateway({
      servers: {
        search: {
          command: process.execPath,
          args: [RLF, "tool", "search", "--corpus", corpus, "--stdio"],
        },
      },
    }),
    startSimulatedLlm({ policy: "search-then-answer", seed: 7 }),
    // the corpus holds the context paragraphs of the first 100 dev questions
    loadTasks({ path: join(HOTPOT, "dev.jsonl"), limit: 24, prompt: { template: "hermes-qa" } }),
  ]);
}, 60_000);

afterAll(async () => {
  await sim?.close();
  await gateway?.stop();
});

describe("rollout over HotpotQA with the real search tool", () => {
  let trajectories: Trajectory[];
  const byTask = new Map<string, Task>();

  beforeAll(async () => {
    for (const t of tasks) byTask.set(t.id, t);
    sim.requests.length = 0;
    trajectories = await rollOut(config(), tasks);
  }, 60_000);

  it("returns every trajectory of every group, most of them answered", () => {
    expect(trajectories).toHaveLength(tasks.length * 2);
    const completed = trajectories.filter((t) => t.status === "completed" && t.status_reason === "answer");
    expect(completed.length).toBeGreaterThan(trajectories.length / 2);
    for (const t of trajectories) expect(t.tool_calls.length).toBeGreaterThan(0);
  });

  it("sends the context as ids (prompt + response so far) and samples every turn with the configured params", () => {
    const sent = new Map(sim.requests.map((r) => [r.promptIds.join(","), r]));
    let laterTurns = 0;
    for (const t of trajectories) {
      t.turns.forEach((turn, i) => {
        if (turn.kind !== "sampled") return;
        const context = [...t.prompt_ids, ...t.response_ids.slice(0, turn.start)];
        const request = sent.get(context.join(","));
        expect(request, `request for turn ${i} of ${t.task_id}`).toBeDefined();
        expect(request?.sampling.temperature).toBe(0.7);
        expect(request?.sampling.top_p).toBe(0.9);
        if (i > 0) laterTurns += 1;
      });
    }
    expect(laterTurns).toBeGreaterThan(tasks.length); // turn 2+ really happened, sampled like turn 1
  });

  it("has loss mask 1 exactly on sampled ids, with the engine's logprobs, and 0 / 0.0 elsewhere", async () => {
    let replayed = 0;
    for (const t of trajectories.slice(0, 6)) {
      for (const turn of t.turns) {
        const mask = t.loss_mask.slice(turn.start, turn.end);
        const lps = t.rollout_logprobs.slice(turn.start, turn.end);
        if (turn.kind === "observation") {
          expect(new Set(mask)).toEqual(new Set([0]));
          expect(new Set(lps)).toEqual(new Set([0]));
          continue;
        }
        expect(new Set(mask)).toEqual(new Set([1]));
        // Replay the request(s) that sent this context (a group's samples share their first-turn
        // context, with different seeds) against the engine: one gives the same ids and logprobs.
        const context = [...t.prompt_ids, ...t.response_ids.slice(0, turn.start)].join(",");
        const candidates = sim.requests.filter((r) => r.promptIds.join(",") === context);
        expect(candidates.length).toBeGreaterThan(0);
        const replays = await Promise.all(
          candidates.map(async (request) => {
            const res = await fetch(`${sim.url}/v1/completions`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({
                prompt: request.promptIds,
                ...request.sampling,
                logprobs: 0,
                return_token_ids: true,
                include_stop_str_in_output: true,
                skip_special_tokens: false,
              }),
            });
            const body = (await res.json()) as {
              choices: { token_ids: number[]; logprobs: { token_logprobs: number[] } }[];
            };
            return { ids: body.choices[0]?.token_ids, logprobs: body.choices[0]?.logprobs.token_logprobs };
          }),
        );
        expect(replays).toContainEqual({ ids: t.response_ids.slice(turn.start, turn.end), logprobs: lps });
        replayed += 1;
      }
    }
    expect(replayed).toBeGreaterThan(6);
  });

  it("decodes prompt + response to the conversation the chat template renders", () => {
    for (const t of trajectories) {
      const task = byTask.get(t.task_id)!;
      const sampled = t.turns.filter((x) => x.kind === "sampled");
      const last = sampled.at(-1)!;
      // The conversation up to the last sampled turn, as messages: assistant turns as sampled (their
      // end token is the template's), tool messages with the results the gateway returned.
      const messages: { role: "system" | "user" | "assistant" | "tool"; content: string }[] = [
        ...task.prompt,
      ];
      for (const [i, turn] of t.turns.entries()) {
        if (turn.start >= last.start) break;
        if (turn.kind === "sampled") {
          const ids = t.response_ids.slice(turn.start, turn.end);
          messages.push({ role: "assistant", content: tokenizer.decode(ids, { skipSpecialTokens: true }) });
        } else {
          for (const call of t.tool_calls.filter((c) => c.turn === i - 1)) {
            messages.push({ role: "tool", content: call.result });
          }
        }
      }
      const tools = gatewayTools;
      const expected = tokenizer.renderChat(messages, { addGenerationPrompt: true, tools });
      expect(tokenizer.decode([...t.prompt_ids, ...t.response_ids.slice(0, last.start)])).toBe(expected);
    }
  });

  it("scores exact match against the gold answers", () => {
    let hits = 0;
    let misses = 0;
    for (const t of trajectories.filter((x) => x.status_reason === "answer")) {
      const golds = goldAnswers(byTask.get(t.task_id)!);
      const lastTurn = t.turns.filter((x) => x.kind === "sampled").at(-1)!;
      const text = tokenizer.decode(t.response_ids.slice(lastTurn.start, lastTurn.end));
      const answer = /<answer>([\s\S]*)<\/answer>/.exec(text)?.[1]?.trim() ?? "";
      const same = golds.some((g) => g.toLowerCase() === answer.toLowerCase());
      const words = (s: string) => new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);
      const disjoint = golds.every((g) => [...words(g)].every((w) => !words(answer).has(w)));
      if (same) {
        expect(t.reward_components.exact_match, `${t.task_id}: "${answer}" vs ${golds}`).toBe(1);
        expect(t.reward).toBe(1);
        hits += 1;
      } else if (disjoint) {
        expect(t.reward_components.exact_match, `${t.task_id}: "${answer}" vs ${golds}`).toBe(0);
        expect(t.reward).toBe(0);
        misses += 1;
      }
    }
    expect(hits).toBeGreaterThan(0);
    expect(misses).toBeGreaterThan(0);
  });

  it("sets GRPO advantages per group", () => {
    const groups = new Map<string, Trajectory[]>();
    for (const t of trajectories) groups.set(t.group_id, [...(groups.get(t.group_id) ?? []), t]);
    expect(groups.size).toBe(tasks.length);
    for (const group of groups.values()) {
      const sum = group.reduce((s, t) => s + (t.advantage ?? 0), 0);
      expect(Math.abs(sum)).toBeLessThan(1e-6);
      if (new Set(group.map((t) => t.reward)).size === 1) for (const t of group) expect(t.advantage).toBe(0);
    }
  });
});

let gatewayTools: {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}[];
beforeAll(async () => {
  const catalog = await gateway.client.listTools();
  gatewayTools = catalog.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: JSON.parse(t.input_schema_json) },
  }));
});

describe("budgets", () => {
  it("cuts a long tool result inside its <tool_response> wrapper", async () => {
    const [t] = await rollOut(
      { ...config({ max_tool_response_tokens: 40, group_size: 1 }) },
      tasks.slice(0, 1),
    ).then((x) => x);
    const obs = t!.turns.find((x) => x.kind === "observation")!;
    const text = tokenizer.decode(t!.response_ids.slice(obs.start, obs.end));
    const m = /<tool_response>\n([\s\S]*)\n<\/tool_response>/.exec(text);
    expect(m, text).not.toBeNull();
    expect(m?.[1]).toMatch(/\[\.\.\. truncated: \d+ tokens omitted\]$/);
    expect(tokenizer.encode(m?.[1] ?? "").length).toBeLessThanOrEqual(41);
    expect(t!.tool_calls[0]!.result.length).toBeGreaterThan(m![1]!.length); // the record keeps the full result
    expect(text.endsWith("<|im_start|>assistant\n")).toBe(true);
  });

  it("ends an over-long context as truncated, the prompt and its question intact", async () => {
    const searching = await startSimulatedLlm({ policy: "keep-searching", seed: 3 });
    try {
      const budget = 2500;
      const trajectories = await rollOut(
        config({ max_context_tokens: budget, max_turns: 50, group_size: 2 }, searching.url),
        tasks.slice(0, 2),
      );
      expect(trajectories).toHaveLength(4);
      for (const t of trajectories) {
        expect(t.status).toBe("truncated");
        expect(t.status_reason).toMatch(/context budget/);
        expect(t.prompt_ids.length + t.response_ids.length).toBeLessThanOrEqual(budget);
        const task = tasks.find((x) => x.id === t.task_id)!;
        expect(t.prompt_ids).toEqual(renderPromptIds({ tokenizer, tools: gatewayTools }, task));
        expect(tokenizer.decode(t.prompt_ids)).toContain(
          task.extra_info.question ?? task.prompt.at(-1)!.content,
        );
        expect(t.turns.filter((x) => x.kind === "sampled").length).toBeGreaterThan(1);
      }
    } finally {
      await searching.close();
    }
  });
});

describe("malformed and empty turns", () => {
  it("feeds malformed calls back as typed observations and goes on to an answer", async () => {
    const malformed = await startSimulatedLlm({ policy: "malformed", seed: 5 });
    try {
      const trajectories = await rollOut(config({ group_size: 1 }, malformed.url), tasks.slice(0, 3));
      for (const t of trajectories) {
        expect(t.status_reason).toBe("answer");
        const codes = t.tool_calls.map((c) => c.error_code);
        expect(codes.filter((c) => c?.startsWith("MALFORMED_")).length).toBeGreaterThan(1);
        expect(codes).toContain(null); // the valid call that followed
        const firstObs = t.turns.find((x) => x.kind === "observation")!;
        const text = tokenizer.decode(t.response_ids.slice(firstObs.start, firstObs.end));
        expect(text).toMatch(/<tool_response>\nError \[(INVALID_JSON|MISSING_NAME|UNCLOSED_TAG)\]: /);
      }
    } finally {
      await malformed.close();
    }
  });

  it("on_no_action nudge: a turn that does nothing gets an UNKNOWN_ACTION observation, then max_turns ends it", async () => {
    const rambling = await startSimulatedLlm({ policy: "ramble", seed: 6 });
    try {
      const [t] = await rollOut(
        config(
          { group_size: 1, max_turns: 3, on_no_action: "nudge", sampling: { max_tokens: 64 } },
          rambling.url,
        ),
        tasks.slice(0, 1),
      );
      expect(t?.status).toBe("truncated");
      expect(t?.status_reason).toBe("max_turns (3) reached");
      expect(t?.turns.map((x) => x.kind)).toEqual([
        "sampled",
        "observation",
        "sampled",
        "observation",
        "sampled",
      ]);
      expect(t?.tool_calls.map((c) => c.error_code)).toEqual([
        "MALFORMED_UNKNOWN_ACTION",
        "MALFORMED_UNKNOWN_ACTION",
      ]);
      const obs = t!.turns[1]!;
      expect(tokenizer.decode(t!.response_ids.slice(obs.start, obs.end))).toContain(
        "Error [UNKNOWN_ACTION]: The previous turn neither called a tool nor gave an answer.",
      );
    } finally {
      await rambling.close();
    }
  });
});

describe("other engines and formats", () => {
  it("SGLang /generate: every sampled turn carries the engine's weight_version", async () => {
    const sglang = await startSimulatedLlm({
      policy: "search-then-answer",
      seed: 8,
      weightVersion: "step-41",
    });
    try {
      const raw = config({ group_size: 1 }, sglang.url);
      const trajectories = await rollOut(
        { ...raw, inference: { engine: "sglang", urls: [sglang.url] } },
        tasks.slice(0, 2),
      );
      for (const t of trajectories) {
        expect(t.status_reason).toBe("answer");
        expect(t.policy_version).toBe("step-41");
        for (const turn of t.turns.filter((x) => x.kind === "sampled"))
          expect(turn.policy_version).toBe("step-41");
      }
      expect(sglang.requests.every((r) => r.protocol === "sglang")).toBe(true);
    } finally {
      await sglang.close();
    }
  });

  it("a request's own inference servers (a training engine's) are used instead of the config's", async () => {
    const engines = await Promise.all([
      startSimulatedLlm({ policy: "search-then-answer", seed: 12, weightVersion: "w3" }),
      startSimulatedLlm({ policy: "search-then-answer", seed: 13, weightVersion: "w4" }),
    ]);
    const engine = await createRolloutEngine(parseRolloutConfig(config({ group_size: 2 })));
    try {
      sim.requests.length = 0;
      for (const [own, version] of [
        [engines[0], "w3"],
        [engines[1], "w4"],
        [engines[0], "w3"], // the same target again reuses its sampler
      ] as const) {
        const out: Trajectory[] = [];
        for await (const group of engine.rollout(tasks.slice(0, 2), {
          inference: { urls: [own.url], engine: "sglang" },
        }))
          out.push(...group.trajectories);
        expect(out).toHaveLength(4);
        for (const t of out) {
          expect(t.status_reason).toBe("answer");
          expect(t.policy_version).toBe(version);
        }
      }
      expect(sim.requests).toHaveLength(0); // the config's server was never asked
      expect(engines[0].requests.length).toBeGreaterThan(0);
      expect(engines[0].requests.every((r) => r.protocol === "sglang")).toBe(true);
      expect(engines[1].requests.length).toBeGreaterThan(0);
    } finally {
      await engine.close();
      await Promise.all(engines.map((e) => e.close()));
    }
  });

  it("Search-R1 tags: observations are <information> text appended after the model's tokens", async () => {
    const searchR1 = await startSimulatedLlm({ policy: "search-r1", seed: 9 });
    try {
      const batch = await loadTasks({
        path: join(HOTPOT, "dev.jsonl"),
        limit: 3,
        prompt: { template: "search-r1" },
      });
      const trajectories = await rollOut(
        { ...config({ group_size: 1 }, searchR1.url), format: "search-r1" },
        batch,
      );
      for (const t of trajectories) {
        expect(t.status_reason).toBe("answer");
        const obs = t.turns.find((x) => x.kind === "observation")!;
        const text = tokenizer.decode(t.response_ids.slice(obs.start, obs.end));
        expect(text).toMatch(/^\n\n<information>Doc 1\(Title: [\s\S]*<\/information>\n\n$/);
        const first = t.turns[0]!;
        expect(tokenizer.decode(t.response_ids.slice(first.start, first.end))).toMatch(
          /<search>[\s\S]*<\/search>$/,
        );
      }
    } finally {
      await searchR1.close();
    }
  });
});

// The `solve` policy driven the way the rollout loop drives a model: prompts rendered with Qwen3's chat
// template (the task's tools in the system message), each turn parsed with the engine's Hermes codec.
// Over the shipped example's task file (examples/ftrl-hotpotqa/tasks.jsonl, written by `rlf env build`):
// model turn K makes exactly the calls of the task's K-th ground-truth turn, then it answers with the
// ground truth.
import { join } from "node:path";
import type { ChatMessage } from "@rlfactory/rollout";
import { type ModelTokenizer, qwen3Tokenizer, toolCallFormat } from "@rlfactory/rollout";
import { ROOT } from "@rlfactory/test-support/gateway-harness";
import { beforeAll, describe, expect, it } from "vitest";
import { simulateLlmOptions } from "./command.ts";
import { policyOptionsSchema } from "./policies/policy.ts";
import { simulatedPolicy } from "./policies/registry.ts";
import { loadSolveTasks, type SolveCall, type SolveTask } from "./policies/solve-tasks.ts";
import { createSimulator } from "./simulator.ts";

const TASK_FILE = join(ROOT, "examples/ftrl-hotpotqa/tasks.jsonl");

let tok: ModelTokenizer;
let tasks: SolveTask[];
beforeAll(async () => {
  tok = await qwen3Tokenizer();
  tasks = await loadSolveTasks(TASK_FILE);
});
const hermes = toolCallFormat("hermes");

/** Plays a task: each message's parsed calls get results; the first message without calls ends it. */
function playTask(task: SolveTask, think = false): { calls: SolveCall[][]; answer?: string; text: string } {
  const sim = createSimulator({
    tokenizer: tok,
    policy: simulatedPolicy("solve"),
    policyOptions: policyOptionsSchema.parse({ solveTasks: tasks, think }),
  });
  const messages: ChatMessage[] = task.prompt.map((m) => ({
    role: m.role as ChatMessage["role"],
    content: m.content,
  }));
  const calls: SolveCall[][] = [];
  for (let step = 0; step < 20; step++) {
    const prompt = tok.renderChat(messages, { addGenerationPrompt: true });
    const out = sim.run(
      {
        promptIds: tok.encode(prompt),
        temperature: 0,
        top_p: 1,
        max_tokens: 4096,
        stop: [],
        limits: { stopTokenIds: [], includeStop: true, skipSpecialTokens: true, stopStringWinsAtCap: true },
      },
      0,
    );
    const parsed = hermes.parse(out.text);
    expect(parsed.malformed).toEqual([]);
    messages.push({ role: "assistant", content: out.text });
    if (parsed.calls.length === 0)
      return { calls, text: out.text, ...(parsed.answer === undefined ? {} : { answer: parsed.answer }) };
    calls.push(parsed.calls.map((c) => ({ name: c.name, arguments: c.arguments })));
    const obs = hermes.renderObservation(
      parsed.calls.map((c) => ({ kind: "result", name: c.name, text: `Result: ${c.name}`, isError: false })),
    );
    if (obs.kind !== "messages") throw new Error("hermes renders messages");
    messages.push(...obs.messages.map((m) => ({ ...m })));
  }
  throw new Error("the solve policy did not answer");
}

describe("solve", () => {
  it("makes each hop's ground-truth calls in one message, turn by turn, then answers with the ground truth", () => {
    expect(tasks).toHaveLength(20);
    const hops = new Set<number>();
    for (const task of tasks) {
      const played = playTask(task);
      expect(played.calls, task.id).toEqual(task.extra_info.actions);
      expect(played.answer, task.id).toBe(task.ground_truth);
      expect(played.text).toBe(`<answer>${task.ground_truth}</answer>`);
      hops.add(task.extra_info.actions.length);
    }
    // the example mixes one-hop and two-hop tasks
    expect([...hops].sort()).toEqual([1, 2]);
  });

  it("answers at once a task without calls; with --think the calls still parse", () => {
    const bare = { ...tasks[0]!, extra_info: { actions: [] } };
    const sim = createSimulator({
      tokenizer: tok,
      policy: simulatedPolicy("solve"),
      policyOptions: policyOptionsSchema.parse({ solveTasks: [bare] }),
    });
    const out = sim.run(
      {
        promptIds: tok.encode(tok.renderChat(bare.prompt as ChatMessage[], { addGenerationPrompt: true })),
        temperature: 0,
        top_p: 1,
        max_tokens: 4096,
        stop: [],
        limits: { stopTokenIds: [], includeStop: true, skipSpecialTokens: true, stopStringWinsAtCap: true },
      },
      0,
    );
    expect(out.text).toBe(`<answer>${bare.ground_truth}</answer>`);
    const task = tasks.find((t) => t.extra_info.actions.length === 2)!;
    expect(playTask(task, true).calls).toEqual(task.extra_info.actions);
  });

  it("refuses a conversation no task has", () => {
    const sim = createSimulator({
      tokenizer: tok,
      policy: simulatedPolicy("solve"),
      policyOptions: policyOptionsSchema.parse({ solveTasks: tasks }),
    });
    expect(() =>
      sim.run(
        {
          promptIds: tok.encode(
            tok.renderChat([{ role: "user", content: "Who?" }], { addGenerationPrompt: true }),
          ),
          temperature: 0,
          top_p: 1,
          max_tokens: 256,
          stop: [],
          limits: { stopTokenIds: [], includeStop: true, skipSpecialTokens: true, stopStringWinsAtCap: true },
        },
        0,
      ),
    ).toThrow(/solve: no task has this conversation's user message \("Who\?"\)/);
  });
});

describe("solve --tasks FILE", () => {
  it("loads the task file of rlf env build; solve without it is a usage error", async () => {
    const options = await simulateLlmOptions({ policy: "solve", tasks: TASK_FILE });
    expect(options.policyOptions?.solveTasks).toHaveLength(20);
    expect(options.policyOptions?.tasks).toBeUndefined();
    await expect(simulateLlmOptions({ policy: "solve" })).rejects.toThrow(
      "--policy solve needs --tasks FILE",
    );
    await expect(
      simulateLlmOptions({ policy: "solve", tasks: join(ROOT, "examples/ftrl-hotpotqa/summary.json") }),
    ).rejects.toThrow("--tasks:");
  });
});

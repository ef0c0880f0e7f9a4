// The `replay` policy driven the way the rollout loop drives a model: prompts rendered with Qwen3's chat
// template, each turn parsed with the engine's Hermes codec. Every user turn gets exactly its
// ground-truth calls, read back as the same {name, arguments}, then a reply that ends the turn.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatMessage } from "@rlfactory/rollout";
import { convertBfclTasks, type ModelTokenizer, qwen3Tokenizer, toolCallFormat } from "@rlfactory/rollout";
import { haveSharedData, sharedDataPath } from "@rlfactory/test-support/shared-data";
import { beforeAll, describe, expect, it } from "vitest";
import { simulateLlmOptions } from "./command.ts";
import { policyOptionsSchema } from "./policies/policy.ts";
import { simulatedPolicy } from "./policies/registry.ts";
import {
  loadReplayTasks,
  type ReplayCall,
  type ReplayTask,
  replayTaskSchema,
} from "./policies/replay-tasks.ts";
import { createSimulator } from "./simulator.ts";

let tok: ModelTokenizer;
beforeAll(async () => {
  tok = await qwen3Tokenizer();
});
const hermes = toolCallFormat("hermes");

interface Episode {
  /** Per user turn, the calls of each model message (parsed back by the Hermes codec). */
  calls: ReplayCall[][][];
  /** The model's replies that ended a turn. */
  replies: string[];
  answer?: string;
}

/** Plays a task's conversation the rollout loop's way: calls get results, a reply brings the next user turn. */
function playTask(task: ReplayTask, tasks: ReplayTask[], think = false): Episode {
  const sim = createSimulator({
    tokenizer: tok,
    policy: simulatedPolicy("replay"),
    policyOptions: policyOptionsSchema.parse({ tasks, think }),
  });
  const messages: ChatMessage[] = task.prompt.map((m) => ({
    role: m.role as ChatMessage["role"],
    content: m.content,
  }));
  const episode: Episode = { calls: [[]], replies: [] };
  let nextTurn = 0;
  for (let step = 0; step < 100; step++) {
    const ids = tok.encode(tok.renderChat(messages, { addGenerationPrompt: true }));
    const out = sim.run(
      {
        promptIds: ids,
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
    if (parsed.calls.length > 0) {
      episode.calls.at(-1)!.push(parsed.calls.map((c) => ({ name: c.name, arguments: c.arguments })));
      const obs = hermes.renderObservation(
        parsed.calls.map((c) => ({ kind: "result", name: c.name, text: `ok ${c.name}`, isError: false })),
      );
      if (obs.kind !== "messages") throw new Error("hermes renders messages");
      messages.push(...obs.messages.map((m) => ({ ...m })));
      continue;
    }
    episode.replies.push(out.text);
    if (parsed.answer !== undefined) episode.answer = parsed.answer;
    const turn = task.turns[nextTurn++];
    if (turn === undefined) return episode;
    // A changed tool set comes as a system message right before the user message, as the engine writes it.
    if (turn.tools !== undefined)
      messages.push({ role: "system", content: "The tools available from now on changed." });
    messages.push({ role: "user", content: turn.content });
    episode.calls.push([]);
  }
  throw new Error("the replay did not end");
}

const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args });
const TASKS: ReplayTask[] = [
  {
    id: "fs_1",
    prompt: [{ role: "user", content: "List everything, hidden files too." }],
    ground_truth: [call("ls", { a: true })],
    turns: [
      {
        content: "Go to workspace and archive log.txt.",
        ground_truth: [
          call("cd", { folder: "workspace" }),
          call("mv", { source: "log.txt", destination: "archive" }),
        ],
      },
      { content: "Just tell me you are done.", ground_truth: [] },
      {
        content: "Average these.",
        tools: ["mean"],
        ground_truth: [
          call("mean", { numbers: [1, 2.5, -3] }),
          call("echo", { content: "a 'quoted'\nline", file_name: null }),
        ],
      },
    ],
  },
  // Same first message, different later turns (BFCL's multi_turn_base_40 and _43 are such a pair).
  {
    id: "fs_2",
    prompt: [{ role: "user", content: "List everything, hidden files too." }],
    ground_truth: [call("ls", { a: true })],
    turns: [{ content: "Find log.txt.", ground_truth: [call("find", { path: ".", name: "log.txt" })] }],
  },
].map((t) => replayTaskSchema.parse(t));

describe("replay", () => {
  it("answers each user turn with its ground-truth calls in one message, then ends the turn", () => {
    const e = playTask(TASKS[0]!, TASKS);
    expect(e.calls).toEqual([
      [TASKS[0]!.ground_truth],
      [TASKS[0]!.turns[0]!.ground_truth],
      [], // no ground truth: the reply comes at once
      [TASKS[0]!.turns[2]!.ground_truth],
    ]);
    expect(e.replies).toEqual(["Done.", "Done.", "Done.", "<answer>Done.</answer>"]);
    expect(e.answer).toBe("Done.");
  });

  it("tells tasks that share a first message apart by their later messages", () => {
    const e = playTask(TASKS[1]!, TASKS);
    expect(e.calls).toEqual([[[call("ls", { a: true })]], [[call("find", { path: ".", name: "log.txt" })]]]);
    expect(e.replies.at(-1)).toBe("<answer>Done.</answer>");
  });

  it("with --think, every message opens with a think block and the calls still parse", () => {
    expect(playTask(TASKS[0]!, TASKS, true).calls[1]).toEqual([TASKS[0]!.turns[0]!.ground_truth]);
  });

  it("refuses a conversation no task has, and tasks that disagree on the same messages", () => {
    const play = (tasks: ReplayTask[], content: string) =>
      createSimulator({
        tokenizer: tok,
        policy: simulatedPolicy("replay"),
        policyOptions: policyOptionsSchema.parse({ tasks }),
      }).run(
        {
          promptIds: tok.encode(tok.renderChat([{ role: "user", content }], { addGenerationPrompt: true })),
          temperature: 0,
          top_p: 1,
          max_tokens: 256,
          stop: [],
          limits: { stopTokenIds: [], includeStop: true, skipSpecialTokens: true, stopStringWinsAtCap: true },
        },
        0,
      );
    expect(() => play(TASKS, "Something else.")).toThrow(
      /no task has this conversation's user messages \(first: "Something else\."\)/,
    );
    const twin = replayTaskSchema.parse({ ...TASKS[1], id: "fs_3", ground_truth: [call("pwd", {})] });
    expect(() => play([TASKS[1]!, twin], "List everything, hidden files too.")).toThrow(
      /tasks fs_2 and fs_3 match this conversation but differ in turn 0/,
    );
  });
});

describe("replay --tasks FILE", () => {
  const dir = mkdtempSync(join(tmpdir(), "replay-tasks-"));
  it("loads the file; replay without it, or --tasks with another policy, is a usage error", async () => {
    const file = join(dir, "tasks.jsonl");
    writeFileSync(file, TASKS.map((t) => `${JSON.stringify(t)}\n`).join(""));
    const options = await simulateLlmOptions({ policy: "replay", tasks: file });
    expect(options.policyOptions?.tasks?.map((t) => t.id)).toEqual(["fs_1", "fs_2"]);
    await expect(simulateLlmOptions({ policy: "replay" })).rejects.toThrow(
      "--policy replay needs --tasks FILE",
    );
    await expect(simulateLlmOptions({ policy: "converse", tasks: file })).rejects.toThrow(
      "--tasks is for --policy replay",
    );
  });

  it("names the file, line and field of a bad task", async () => {
    const file = join(dir, "bad.jsonl");
    writeFileSync(
      file,
      `${JSON.stringify(TASKS[0])}\n\n${JSON.stringify({ ...TASKS[1], ground_truth: [{ arguments: {} }] })}\n`,
    );
    await expect(loadReplayTasks(file)).rejects.toThrow(`${file}:3: ground_truth.0.name:`);
  });
});

const BASE = [
  "bfcl/BFCL_v4_multi_turn_base.json",
  "bfcl/possible_answer/BFCL_v4_multi_turn_base.json",
] as const;

describe.skipIf(!haveSharedData("BFCL multi_turn_base", ...BASE))("replay over `rlf data bfcl` tasks", () => {
  it("plays all 200 multi_turn_base tasks turn by turn, exactly their ground truth", async () => {
    const converted = await convertBfclTasks({
      questions: sharedDataPath(BASE[0]),
      answers: sharedDataPath(BASE[1]),
      funcDocs: sharedDataPath("bfcl/multi_turn_func_doc"),
    });
    const tasks = converted.map((t) => replayTaskSchema.parse(t));
    expect(tasks).toHaveLength(200);
    for (const task of tasks) {
      const e = playTask(task, tasks);
      const expected = [task.ground_truth, ...task.turns.map((t) => t.ground_truth)].map((gt) =>
        gt.length === 0 ? [] : [gt],
      );
      expect(e.calls, task.id).toEqual(expected);
      expect(e.replies, task.id).toHaveLength(task.turns.length + 1);
    }
  }, 60_000); // 200 conversations through the real tokenizer: seconds, more on a loaded machine
});

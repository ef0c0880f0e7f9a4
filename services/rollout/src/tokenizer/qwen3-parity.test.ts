import type { ChatMessage } from "@rlfactory/contracts";
import { TrajectoryBuilder } from "@rlfactory/contracts";
import { beforeAll, describe, expect, it } from "vitest";
import { type ModelTokenizer, qwen3Tokenizer } from "./model-tokenizer.ts";
import { createObservationDelta } from "./observation-delta.ts";

/**
 * Token-stream parity on the real Qwen3 tokenizer and template: prompt ids + sampled ids +
 * observation deltas versus tokenizing the re-rendered conversation. Parity holds for one user
 * query followed by a tool chain in which every turn thinks; the other cases document where the
 * template is not append-only (see docs/trajectory.md).
 */

let tok: ModelTokenizer;
beforeAll(async () => {
  tok = await qwen3Tokenizer();
});

const tools = [
  {
    type: "function" as const,
    function: {
      name: "search",
      description: "Search the web",
      parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
    },
  },
];
const question: ChatMessage[] = [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: "Who wrote Hamlet, and when was it first performed?" },
];

interface ModelTurn {
  /** What the model generated, as text (its sampled ids are this text's ids). */
  generated: string;
  /** How the turn stopped: at <|im_end|> (sampled) or at a stop string (not sampled). */
  endedWithEos: boolean;
  /** The same turn as a chat message, as a re-rendering pipeline stores it (tool calls parsed). */
  message: ChatMessage;
  /** Tool results or a new user message that follow it. */
  followedBy: ChatMessage[];
}

const call = (query: string) => ({
  type: "function" as const,
  function: { name: "search", arguments: { query } },
});
const callText = (query: string) =>
  `<tool_call>\n{"name": "search", "arguments": {"query": ${JSON.stringify(query)}}}\n</tool_call>`;

const toolChain: ModelTurn[] = [
  {
    generated: `<think>\nI should look up the author.\n</think>\n\n${callText("Hamlet author")}<|im_end|>`,
    endedWithEos: true,
    message: {
      role: "assistant",
      content: "<think>\nI should look up the author.\n</think>\n\n",
      tool_calls: [call("Hamlet author")],
    },
    followedBy: [{ role: "tool", content: "Hamlet is a tragedy written by William Shakespeare." }],
  },
  {
    // Parallel calls; generation stopped at the stop string "</tool_call>" (no <|im_end|> sampled).
    generated: `<think>\nNow the date, two sources.\n</think>\n\n${callText("Hamlet first performance")}\n${callText("Globe Theatre 1600")}`,
    endedWithEos: false,
    message: {
      role: "assistant",
      content: "<think>\nNow the date, two sources.\n</think>\n\n",
      tool_calls: [call("Hamlet first performance"), call("Globe Theatre 1600")],
    },
    followedBy: [
      { role: "tool", content: "First performed c. 1600–1601." },
      { role: "tool", content: "The Globe opened in 1599 – 中文 ✓." },
    ],
  },
  {
    generated:
      "<think>\nBoth facts found.\n</think>\n\n<answer>William Shakespeare, around 1600</answer><|im_end|>",
    endedWithEos: true,
    message: {
      role: "assistant",
      content: "<think>\nBoth facts found.\n</think>\n\n<answer>William Shakespeare, around 1600</answer>",
    },
    followedBy: [],
  },
];

/** Plays a conversation token by token the way the rollout engine does. */
function play(prefix: ChatMessage[], turns: ModelTurn[], enableThinking?: boolean) {
  const opts = enableThinking === undefined ? {} : { enableThinking };
  const promptIds = tok.encode(tok.renderChat(prefix, { tools, addGenerationPrompt: true, ...opts }));
  const traj = new TrajectoryBuilder({
    taskId: "hamlet",
    groupId: "g0",
    sampleIndex: 0,
    promptIds,
    vocabSize: tok.vocabSize,
  });
  const delta = createObservationDelta(tok, { tools, ...opts });
  const messages = [...prefix];
  for (const t of turns) {
    const sampled = tok.encode(t.generated); // stands in for the sampler's ids
    traj.appendSampled(
      sampled,
      sampled.map(() => -0.25),
    );
    messages.push(t.message, ...t.followedBy);
    if (t.followedBy.length > 0) {
      traj.appendObservation(delta(t.followedBy, { lastAssistantEndedWithEos: t.endedWithEos }).ids);
    }
  }
  traj.finish("completed");
  const record = traj.toJSON();
  return { record, stream: [...record.prompt_ids, ...record.response_ids], messages, opts };
}

function firstDifference(a: readonly number[], b: readonly number[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

describe("Qwen3 parity: sampled ids + observation deltas vs re-rendered conversation", () => {
  it("holds for one query and a thinking tool chain (stops at <|im_end|> or at a stop string)", () => {
    const { record, stream, messages } = play(question, toolChain);
    const rerendered = tok.encode(tok.renderChat(messages, { tools }));
    // The re-render closes the final turn with "<|im_end|>\n"; the model stopped at <|im_end|>.
    expect([...stream, ...tok.encode("\n")]).toEqual(rerendered);
    expect(record.turns.map((t) => t.kind)).toEqual([
      "sampled",
      "observation",
      "sampled",
      "observation",
      "sampled",
    ]);
    // Observation turns carry exactly the template tokens the model never sampled.
    const obs = record.turns.filter((t) => t.kind === "observation");
    expect(
      tok.decode(record.response_ids.slice(obs[0]!.start, obs[0]!.end)).startsWith("\n<|im_start|>user"),
    ).toBe(true);
    expect(tok.decode(record.response_ids.slice(obs[1]!.start, obs[1]!.end)).startsWith("<|im_end|>\n")).toBe(
      true,
    );
  });

  it("breaks after a new user query: earlier <think> blocks are stripped on re-render", () => {
    const followUp: ModelTurn[] = [
      { ...toolChain[2]!, followedBy: [{ role: "user", content: "Who played him first?" }] },
      {
        generated: "<think>\nRichard Burbage.\n</think>\n\nRichard Burbage.<|im_end|>",
        endedWithEos: true,
        message: { role: "assistant", content: "<think>\nRichard Burbage.\n</think>\n\nRichard Burbage." },
        followedBy: [],
      },
    ];
    const { record, stream, messages } = play(question, [...toolChain.slice(0, 2), ...followUp]);
    const rerenderedText = tok.renderChat(messages, { tools });
    const rerendered = tok.encode(rerenderedText);
    const seen = tok.decode(stream);
    // The model saw its earlier reasoning; the re-render no longer has it.
    for (const r of ["I should look up the author.", "Now the date, two sources.", "Both facts found."]) {
      expect(seen).toContain(r);
      expect(rerenderedText).not.toContain(r);
    }
    expect(rerenderedText).toContain("<think>\nRichard Burbage.\n</think>"); // the turn after the last query keeps it
    // The streams part at the first sampled token: <think> versus the stripped turn's <tool_call>.
    const at = firstDifference(stream, rerendered);
    expect(at).toBe(record.prompt_ids.length);
    expect(stream[at]).toBe(tok.tokenId("<think>"));
    expect(rerendered[at]).toBe(tok.tokenId("<tool_call>"));
    expect(rerendered.length).toBeLessThan(stream.length);
  });

  it("breaks with enable_thinking=false: the empty think blocks of earlier turns vanish", () => {
    const noThink = toolChain.map((t) => ({
      ...t,
      generated: t.generated.replace(/^<think>[\s\S]*?<\/think>\n\n/, ""),
      message: { ...t.message, content: t.message.content.replace(/^<think>[\s\S]*?<\/think>\n\n/, "") },
    }));
    const { stream, messages, opts } = play(question, noThink, false);
    const emptyThink = /<think>\n\n<\/think>\n\n/g;
    const seen = tok.decode(stream);
    const rerenderedText = tok.renderChat(messages, { tools, ...opts });
    expect(seen.match(emptyThink)).toHaveLength(3); // one per assistant turn, from the generation prompts
    expect(rerenderedText.match(emptyThink)).toHaveLength(1); // only the last turn keeps it
    expect(tok.encode(rerenderedText)).not.toEqual([...stream, ...tok.encode("\n")]);
  });

  it("breaks when the model skips thinking: the re-render invents an empty think block", () => {
    const direct: ModelTurn = {
      generated: "<answer>Shakespeare</answer><|im_end|>",
      endedWithEos: true,
      message: { role: "assistant", content: "<answer>Shakespeare</answer>" },
      followedBy: [],
    };
    const { stream, messages } = play(question, [direct]);
    const rerenderedText = tok.renderChat(messages, { tools });
    expect(tok.decode(stream)).not.toContain("<think>");
    expect(rerenderedText).toContain(
      "<|im_start|>assistant\n<think>\n\n</think>\n\n<answer>Shakespeare</answer>",
    );
  });

  it("breaks on whitespace the template normalizes inside and after <think>", () => {
    const spaced: ModelTurn = {
      generated: "<think>\n\nLet me think.\n\n</think>\n\n\nShakespeare.<|im_end|>",
      endedWithEos: true,
      message: { role: "assistant", content: "<think>\n\nLet me think.\n\n</think>\n\n\nShakespeare." },
      followedBy: [],
    };
    const { stream, messages } = play(question, [spaced]);
    const rerenderedText = tok.renderChat(messages, { tools });
    expect(rerenderedText).toContain("<think>\nLet me think.\n</think>\n\nShakespeare.<|im_end|>");
    expect(tok.decode(stream)).toContain(spaced.generated);
    expect(tok.encode(rerenderedText)).not.toEqual([...stream, ...tok.encode("\n")]);
  });

  it("breaks on non-canonical samples: the same text re-tokenizes to other ids", () => {
    // A sampler may emit "Hel" + "lo"; re-tokenizing the decoded text gives the canonical "Hello".
    const sampled = [tok.requireTokenId("Hel"), tok.requireTokenId("lo")];
    const text = tok.decode(sampled);
    expect(text).toBe("Hello");
    expect(tok.encode(text)).toEqual([tok.requireTokenId("Hello")]);
    expect(tok.encode(text)).not.toEqual(sampled);
  });
});

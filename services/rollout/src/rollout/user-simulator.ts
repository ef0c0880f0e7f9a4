// The LLM user simulator (τ-bench style): an OpenAI-compatible chat model plays the user of a
// multi-turn task. It gets the task's instruction as its system message and the conversation so far
// from the user's side (the user's own messages as `assistant`, the policy's replies as `user`), and
// writes the next user message, or the stop marker (`###STOP###`) to end the episode.
//
// Its failures are the trajectory's: the loop ends it `failed` with the reason
// `user_simulator CODE: message` (CODE one of UserSimulatorError's codes); never a made-up message.

import type { TaskUserSimulator } from "@rlfactory/contracts";
import { ChatCompletionsSampler } from "../inference/chat-completions.ts";
import { InferenceError } from "../inference/types.ts";
import type { UserSimulatorConfig } from "./rollout-config.ts";

/** One message of the conversation as the user saw it: what the user wrote, what the policy answered. */
export interface UserViewMessage {
  from: "user" | "policy";
  content: string;
}

export type UserSimulatorReply = { kind: "message"; content: string } | { kind: "stop"; content: string };

export class UserSimulatorError extends Error {
  override name = "UserSimulatorError";
  /** Inference codes (TIMEOUT, UNAVAILABLE, HTTP_ERROR, BAD_RESPONSE, CANCELLED), or EMPTY_MESSAGE. */
  readonly code: InferenceError["code"] | "EMPTY_MESSAGE";
  constructor(code: UserSimulatorError["code"], message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
  }
}

export interface UserSimulator {
  /** Messages it writes per trajectory at most. */
  readonly maxTurns: number;
  next(
    task: TaskUserSimulator,
    conversation: readonly UserViewMessage[],
    signal?: AbortSignal,
  ): Promise<UserSimulatorReply>;
  close(): Promise<void>;
}

/** The system message: τ-bench's user-simulation instruction with the task's own. */
export function userSimulatorSystemPrompt(instruction: string, stopMarker: string): string {
  return [
    "You are a user interacting with an agent.",
    "",
    `Instruction: ${instruction}`,
    "",
    "Rules:",
    "- Generate one line at a time to simulate the user's message.",
    "- Do not give away all the instruction at once. Only provide the information that is necessary for the current step.",
    "- Do not hallucinate information that is not provided in the instruction.",
    `- If the instruction goal is satisfied, generate '${stopMarker}' as a standalone message without anything else to end the conversation.`,
    "- Do not repeat the exact instruction in the conversation. Instead, use your own words to convey the same information.",
  ].join("\n");
}

/** The policy's text as the user sees it: without `<think>` blocks, trimmed. */
export function policyTextForUser(text: string): string {
  return text.replace(/<think>[\s\S]*?<\/think>/g, "").trim();
}

export function createUserSimulator(config: UserSimulatorConfig): UserSimulator {
  const sampler = new ChatCompletionsSampler({
    urls: [config.url],
    model: config.model,
    timeoutMs: config.timeout_ms,
    retries: 1,
    ...(config.api_key_env === undefined ? {} : { apiKey: process.env[config.api_key_env] ?? "" }),
  });
  return {
    maxTurns: config.max_turns,
    async next(task, conversation, signal) {
      const messages = [
        { role: "system" as const, content: userSimulatorSystemPrompt(task.instruction, config.stop_marker) },
        ...conversation.map((m) => ({
          role: m.from === "user" ? ("assistant" as const) : ("user" as const),
          content: m.content,
        })),
      ];
      let text: string;
      try {
        const out = await sampler.generate({
          messages,
          sampling: {
            temperature: config.temperature,
            top_p: 1,
            max_tokens: config.max_tokens,
            stop: [],
          },
          ...(signal === undefined ? {} : { signal }),
        });
        text = out.text;
      } catch (e) {
        if (e instanceof InferenceError) throw new UserSimulatorError(e.code, e.message, { cause: e });
        throw e;
      }
      if (text.includes(config.stop_marker)) return { kind: "stop", content: text.trim() };
      const content = text.trim();
      if (content === "") {
        throw new UserSimulatorError("EMPTY_MESSAGE", "the user simulator wrote an empty message");
      }
      return { kind: "message", content };
    },
    close: () => sampler.close(),
  };
}

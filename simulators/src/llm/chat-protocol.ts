// OpenAI `POST /v1/chat/completions` as vLLM serves it (non-streaming, n = 1): the messages are rendered
// with the tokenizer's chat template and `add_generation_prompt`, the policy answers, and the reply
// carries its text in `choices[0].message.content`. With `tools` in the request, Hermes `<tool_call>`
// blocks are parsed out of the text into `message.tool_calls` (`arguments` as JSON text, the text before
// the first block as `content`, `finish_reason: "tool_calls"`), as vLLM does with
// `--enable-auto-tool-choice --tool-call-parser hermes`; without `tools` the text is returned as written.
// Token ids are not returned here.

import type { ModelTokenizer } from "@rlfactory/rollout";
import { chatMessageSchema, chatToolSchema } from "@rlfactory/rollout";
import { z } from "zod";
import type { SimRequest, Simulation } from "./simulator.ts";
import { checkContextLength, openAiSimRequest, stopSchema } from "./vllm-protocol.ts";

const unsupported = (what: string) => ({ error: `${what} is not supported by the simulated LLM` });

export const chatRequestSchema = z.looseObject({
  model: z.string().nullish(),
  messages: z.array(chatMessageSchema).min(1, "messages must not be empty"),
  tools: z.array(chatToolSchema).nullish(),
  max_tokens: z.int().positive().nullish(),
  max_completion_tokens: z.int().positive().nullish(),
  temperature: z.number().min(0).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  top_k: z.int().min(-1).nullish(),
  seed: z.int().nullish(),
  stop: stopSchema,
  stop_token_ids: z.array(z.int().min(0)).nullish(),
  include_stop_str_in_output: z.boolean().nullish(),
  skip_special_tokens: z.boolean().nullish(),
  add_generation_prompt: z.boolean().nullish(),
  chat_template_kwargs: z.looseObject({ enable_thinking: z.boolean().optional() }).nullish(),
  n: z.literal(1, unsupported("n > 1")).nullish(),
  stream: z.literal(false, unsupported("stream")).nullish(),
  logprobs: z.literal(false, unsupported("logprobs on chat completions")).nullish(),
  ignore_eos: z.literal(false, unsupported("ignore_eos")).nullish(),
});
export type ChatRequest = z.infer<typeof chatRequestSchema>;

export function chatSimRequest(
  body: ChatRequest,
  tokenizer: ModelTokenizer,
  maxModelLen: number,
): SimRequest {
  const enableThinking = body.chat_template_kwargs?.enable_thinking;
  const prompt = tokenizer.renderChat(body.messages, {
    addGenerationPrompt: body.add_generation_prompt ?? true,
    ...(body.tools ? { tools: body.tools } : {}),
    ...(enableThinking === undefined ? {} : { enableThinking }),
  });
  const promptIds = tokenizer.encode(prompt);
  // vLLM's default: whatever the context leaves
  const maxTokens =
    body.max_completion_tokens ?? body.max_tokens ?? Math.max(1, maxModelLen - promptIds.length);
  checkContextLength(promptIds.length, maxTokens, maxModelLen);
  return openAiSimRequest(body, promptIds, maxTokens);
}

const TOOL_CALL = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;
const parsedCallSchema = z.object({ name: z.string().min(1), arguments: z.unknown().optional() });

/** vLLM's Hermes tool parser: the calls in `text` and the text before them; none when a block is not a call. */
export function parseHermesToolCalls(
  text: string,
  id: string,
): {
  content: string | null;
  toolCalls: { id: string; type: "function"; function: { name: string; arguments: string } }[];
} {
  const blocks = [...text.matchAll(TOOL_CALL)];
  const toolCalls = [];
  for (const [i, b] of blocks.entries()) {
    let parsed: z.infer<typeof parsedCallSchema>;
    try {
      parsed = parsedCallSchema.parse(JSON.parse(b[1]!));
    } catch {
      return { content: text, toolCalls: [] }; // vLLM returns the text as content when a block fails
    }
    toolCalls.push({
      id: `${id}-call-${i}`,
      type: "function" as const,
      function: { name: parsed.name, arguments: JSON.stringify(parsed.arguments ?? {}) },
    });
  }
  if (toolCalls.length === 0) return { content: text, toolCalls };
  const before = text.slice(0, blocks[0]!.index).trim();
  return { content: before === "" ? null : before, toolCalls };
}

export function chatResponse(args: {
  id: string;
  model: string;
  request: SimRequest;
  sim: Simulation;
  /** The request offered tools: parse the text's tool calls. */
  parseTools: boolean;
}) {
  const { request, sim } = args;
  const { content, toolCalls } = args.parseTools
    ? parseHermesToolCalls(sim.text, args.id)
    : { content: sim.text, toolCalls: [] };
  return {
    id: args.id,
    object: "chat.completion" as const,
    created: Math.floor(Date.now() / 1000),
    model: args.model,
    choices: [
      {
        index: 0,
        message: { role: "assistant" as const, content, tool_calls: toolCalls, reasoning_content: null },
        logprobs: null,
        finish_reason: toolCalls.length > 0 && sim.finishReason === "stop" ? "tool_calls" : sim.finishReason,
        stop_reason: sim.matchedEos ? null : sim.matched,
      },
    ],
    service_tier: null,
    system_fingerprint: null,
    usage: {
      prompt_tokens: request.promptIds.length,
      total_tokens: request.promptIds.length + sim.ids.length,
      completion_tokens: sim.ids.length,
      prompt_tokens_details: null,
    },
  };
}

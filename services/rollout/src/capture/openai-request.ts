// The OpenAI request bodies the capture endpoint accepts (zod, at the boundary), and how a chat request's
// messages become the chat template's messages. Unknown fields are ignored, as vLLM does; what the
// capture cannot honour (`stream`, `n > 1`, `logprobs` of other tokens) is refused with a 400 naming it.
import type { ChatMessage } from "@rlfactory/contracts";
import { z } from "zod";

const textPart = z.looseObject({ type: z.literal("text"), text: z.string() });

const messageSchema = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool"]),
  content: z.union([z.string(), z.array(textPart), z.null()]).optional(),
  tool_calls: z
    .array(
      z.looseObject({
        id: z.string().optional(),
        type: z.literal("function").optional(),
        function: z.object({
          name: z.string(),
          arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
        }),
      }),
    )
    .nullish(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
});

const stop = z.union([z.string(), z.array(z.string())]).nullish();

/** What both endpoints share: sampling fields (OpenAI names) and the refusals. */
const common = {
  model: z.string().optional(),
  max_tokens: z.number().int().positive().nullish(),
  temperature: z.number().min(0).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  top_k: z.number().int().nullish(),
  min_p: z.number().min(0).max(1).nullish(),
  seed: z.number().int().nullish(),
  repetition_penalty: z.number().positive().nullish(),
  stop,
  stream: z.literal(false, { error: "stream is not supported by the capture endpoint" }).nullish(),
  n: z.literal(1, { error: "n > 1 is not supported: send one request per sample" }).nullish(),
};

export const chatCompletionRequestSchema = z.looseObject({
  ...common,
  messages: z.array(messageSchema).min(1),
  tools: z
    .array(z.looseObject({ type: z.literal("function"), function: z.looseObject({ name: z.string() }) }))
    .nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  /** Template variables, as vLLM's `chat_template_kwargs` (e.g. `enable_thinking`). */
  chat_template_kwargs: z.record(z.string(), z.unknown()).nullish(),
});
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;

export const completionRequestSchema = z.looseObject({
  ...common,
  prompt: z.string({ error: "prompt must be a string (token-id prompts are not captured)" }),
});
export type CompletionRequest = z.infer<typeof completionRequestSchema>;

/** The messages as chat templates read them: text parts joined, null content as "", `developer` as `system`. */
export function templateMessages(request: ChatCompletionRequest): ChatMessage[] {
  return request.messages.map((m) => {
    const content =
      typeof m.content === "string"
        ? m.content
        : Array.isArray(m.content)
          ? m.content.map((p) => p.text).join("")
          : "";
    const { tool_calls, ...rest } = m;
    return {
      ...rest,
      role: m.role === "developer" ? "system" : m.role,
      content,
      ...(tool_calls && tool_calls.length > 0 && { tool_calls }),
    } as ChatMessage;
  });
}

/** Stop strings as a list. */
export function stopList(value: z.infer<typeof stop>): string[] {
  if (value === null || value === undefined) return [];
  return typeof value === "string" ? [value] : value;
}

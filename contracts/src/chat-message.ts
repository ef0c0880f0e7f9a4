import { z } from "zod";

/** One tool call as chat templates expect it (OpenAI shape; `arguments` an object or a JSON string). */
export const chatToolCallSchema = z.object({
  type: z.literal("function").optional(),
  id: z.string().optional(),
  function: z.object({
    name: z.string(),
    arguments: z.union([z.record(z.string(), z.unknown()), z.string()]),
  }),
});

/**
 * A chat message handed to a model's chat template. Extra keys pass through untouched: templates
 * read fields of their own (`reasoning_content` for Qwen3, `tool_call_id`, `name`, ...).
 */
export const chatMessageSchema = z.looseObject({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string(),
  reasoning_content: z.string().optional(),
  tool_calls: z.array(chatToolCallSchema).optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
});

export type ChatToolCall = z.infer<typeof chatToolCallSchema>;
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/** A tool definition as templates render it in the system prompt (OpenAI function-tool shape). */
export const chatToolSchema = z.looseObject({
  type: z.literal("function"),
  function: z.looseObject({
    name: z.string(),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});

export type ChatTool = z.infer<typeof chatToolSchema>;

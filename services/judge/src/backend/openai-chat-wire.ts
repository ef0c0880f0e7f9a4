// The OpenAI chat-completions wire format as the judge backend speaks it: the request body it sends
// (`POST /v1/chat/completions`, non-streaming), the zod schema of the answer it accepts, and the short
// message it keeps from an error body (OpenAI `{error: {message}}`, vLLM/SGLang `{message}`, FastAPI
// `{detail}`).
import { z } from "zod";
import type { ChatBackendRequest } from "./chat-backend-types.ts";

export interface ChatCompletionBody {
  model: string;
  messages: ChatBackendRequest["messages"];
  temperature: number;
  top_p?: number;
  max_tokens: number;
  seed?: number;
  stream: false;
  response_format?: {
    type: "json_schema";
    json_schema: { name: string; schema: Record<string, unknown>; strict: true };
  };
}

/** The body sent for one request; `response_format` only when `useJsonSchema` and the request has a schema. */
export function chatCompletionBody(
  model: string,
  request: ChatBackendRequest,
  useJsonSchema: boolean,
): ChatCompletionBody {
  const body: ChatCompletionBody = {
    model,
    messages: request.messages,
    temperature: request.temperature,
    max_tokens: request.max_tokens,
    stream: false,
  };
  if (request.top_p !== undefined) body.top_p = request.top_p;
  if (request.seed !== undefined) body.seed = request.seed;
  if (useJsonSchema && request.jsonSchema) {
    body.response_format = {
      type: "json_schema",
      json_schema: { name: request.jsonSchema.name, schema: request.jsonSchema.schema, strict: true },
    };
  }
  return body;
}

/** What we need from an answer: the first choice's text, the model, token usage (absent → 0). */
export const chatCompletionResponseSchema = z.looseObject({
  model: z.string().optional(),
  choices: z.array(z.looseObject({ message: z.looseObject({ content: z.string() }) })).min(1, "no choices"),
  usage: z
    .looseObject({
      prompt_tokens: z.number().int().nonnegative(),
      completion_tokens: z.number().int().nonnegative(),
    })
    .nullish(),
});

const errorBodySchema = z.union([
  z.object({ error: z.object({ message: z.string() }) }),
  z.object({ error: z.string() }),
  z.object({ message: z.string() }),
  z.object({ detail: z.string() }),
]);

const MAX_MESSAGE = 200;

/** A one-line, bounded message from an error response body (its own message when it has one). */
export function shortErrorMessage(text: string): string {
  let message = text;
  try {
    const parsed = errorBodySchema.safeParse(JSON.parse(text));
    if (parsed.success) {
      const b = parsed.data;
      message =
        "detail" in b
          ? b.detail
          : "message" in b
            ? b.message
            : typeof b.error === "string"
              ? b.error
              : b.error.message;
    }
  } catch {
    // not JSON: keep the raw text
  }
  message = message.replace(/\s+/g, " ").trim();
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message || "(empty body)";
}

// What the judge needs from a model: one chat completion, text out, with usage. Implemented by the
// OpenAI-compatible backend pool (backend.ts); failures are JudgeError BACKEND_UNAVAILABLE /
// BACKEND_ERROR / CIRCUIT_OPEN / TIMEOUT / CANCELLED.
export interface ChatBackendRequest {
  messages: { role: "system" | "user" | "assistant"; content: string }[];
  temperature: number;
  top_p?: number;
  max_tokens: number;
  seed?: number;
  /** Ask for JSON matching this schema (OpenAI `response_format: json_schema`) when the backend supports it. */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  signal?: AbortSignal;
}

export interface ChatBackendResponse {
  text: string;
  model: string;
  usage: { prompt_tokens: number; completion_tokens: number };
  /** The backend URL that answered. */
  server: string;
}

export interface ChatBackend {
  /** Model name recorded in metadata. */
  readonly model: string;
  /**
   * Answers are held to the request's JSON schema (OpenAI `response_format: json_schema`): the verdict
   * is then read only from an answer that is that JSON object. Absent or false: a JSON-only answer or
   * prose ending in exactly one score tag.
   */
  readonly jsonSchema?: boolean;
  complete(request: ChatBackendRequest): Promise<ChatBackendResponse>;
  close(): Promise<void>;
}

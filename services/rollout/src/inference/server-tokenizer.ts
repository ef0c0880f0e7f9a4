// What an inference server says about its tokenizer, asked once at start (tokenizer/tokenizer-check.ts
// compares it with ours). Wire shapes as the engines answer them:
//
//   vLLM    GET  /v1/models  → {data: [{id, root, max_model_len, ...}]}: `root` is the `--model` the
//                               server loaded (a local directory or a hub id)
//           POST /tokenize   {model, prompt, add_special_tokens} → {count, max_model_len, tokens, token_strs}
//   SGLang  GET  /get_model_info → {model_path, tokenizer_path, is_generation, ...}
//           POST /tokenize   (also /v1/tokenize; same request and response as vLLM's; SGLang releases
//                               before it answer 404)
//
// A server without `/tokenize` (404/405: older engines, or one started without its tokenizer) gives
// `probeIds: null`: the check then warns instead of refusing. Plain `fetch` with a timeout: one request
// per server at start, no retry stack needed.
import { z } from "zod";
import { readCapped } from "./http-transport.ts";

/** The most of a probe's answer read (a model list, a few token ids). */
const PROBE_BODY_BYTES = 4 * 1024 * 1024;

export interface ServerTokenizerInfo {
  /** The server's base URL. */
  server: string;
  /** The served model's id (`/v1/models` data[].id), when listed. */
  model: string | null;
  /** The model (or tokenizer) path the server loaded: vLLM's `root`, SGLang's `tokenizer_path` / `model_path`. */
  modelPath: string | null;
  maxModelLen: number | null;
  /** The server's ids for the probe text (no special tokens added); null when it has no tokenize endpoint. */
  probeIds: number[] | null;
  /** Why `probeIds` is null (e.g. `POST /tokenize answered 404`). */
  probeError: string | null;
}

/** The server could not be asked at all (refused connection, timeout, non-JSON answers). */
export class ServerProbeError extends Error {
  override name = "ServerProbeError";
}

export interface ProbeOptions {
  engine: "vllm" | "sglang";
  url: string;
  text: string;
  /** The configured model name (picked among `/v1/models` entries and sent with `/tokenize`). */
  model?: string;
  apiKey?: string;
  timeoutMs?: number;
}

const modelsSchema = z.looseObject({
  data: z.array(
    z.looseObject({
      id: z.string(),
      root: z.string().nullish(),
      max_model_len: z.number().int().nullish(),
    }),
  ),
});

const modelInfoSchema = z.looseObject({
  model_path: z.string().nullish(),
  tokenizer_path: z.string().nullish(),
});

const tokenizeSchema = z.looseObject({
  tokens: z.array(z.number().int().nonnegative()),
  max_model_len: z.number().int().nullish(),
});

interface Answer {
  status: number;
  body: unknown;
}

async function call(
  options: ProbeOptions,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
): Promise<Answer> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (options.apiKey !== undefined) headers.authorization = `Bearer ${options.apiKey}`;
  let res: Response;
  try {
    res = await fetch(`${options.url}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new ServerProbeError(
      `${method} ${options.url}${path} failed: ${cause?.code ?? cause?.message ?? (e as Error).message}`,
    );
  }
  const { text, complete } =
    res.body === null ? { text: "", complete: true } : await readCapped(res.body, PROBE_BODY_BYTES);
  if (!complete)
    throw new ServerProbeError(`${method} ${options.url}${path} answered over ${PROBE_BODY_BYTES} bytes`);
  let parsed: unknown = null;
  try {
    parsed = text === "" ? null : JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed };
}

/** Asks one server for its model path and its ids of `text` (see the header for the endpoints). */
export async function probeServerTokenizer(options: ProbeOptions): Promise<ServerTokenizerInfo> {
  const info: ServerTokenizerInfo = {
    server: options.url,
    model: options.model ?? null,
    modelPath: null,
    maxModelLen: null,
    probeIds: null,
    probeError: null,
  };
  const models = await call(options, "GET", "/v1/models");
  const listed = models.status === 200 ? modelsSchema.safeParse(models.body) : undefined;
  if (listed?.success) {
    const entry = listed.data.data.find((m) => m.id === options.model) ?? listed.data.data[0];
    if (entry !== undefined) {
      info.model ??= entry.id;
      info.modelPath = entry.root ?? null;
      info.maxModelLen = entry.max_model_len ?? null;
    }
  }
  if (options.engine === "sglang") {
    const modelInfo = await call(options, "GET", "/get_model_info");
    const parsed = modelInfo.status === 200 ? modelInfoSchema.safeParse(modelInfo.body) : undefined;
    if (parsed?.success)
      info.modelPath = parsed.data.tokenizer_path ?? parsed.data.model_path ?? info.modelPath;
  }
  const tokenized = await call(options, "POST", "/tokenize", {
    ...(info.model === null ? {} : { model: info.model }),
    prompt: options.text,
    add_special_tokens: false,
  });
  if (tokenized.status !== 200) {
    info.probeError = `POST /tokenize answered ${tokenized.status}${errorText(tokenized.body)}`;
    return info;
  }
  const ids = tokenizeSchema.safeParse(tokenized.body);
  if (!ids.success) {
    info.probeError = "POST /tokenize answered a body without a `tokens` list of ids";
    return info;
  }
  info.probeIds = ids.data.tokens;
  info.maxModelLen ??= ids.data.max_model_len ?? null;
  return info;
}

function errorText(body: unknown): string {
  if (body === null || body === undefined) return "";
  const message =
    typeof body === "string"
      ? body
      : ((body as { message?: unknown; error?: { message?: unknown } }).message ??
        (body as { error?: { message?: unknown } }).error?.message ??
        (body as { detail?: unknown }).detail ??
        JSON.stringify(body));
  const text = typeof message === "string" ? message : JSON.stringify(message);
  return `: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
}

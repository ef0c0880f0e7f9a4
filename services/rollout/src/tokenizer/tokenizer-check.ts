// The start-up check of the rollout tokenizer against the inference servers. The engine sends token ids,
// so a tokenizer other than the server's makes every request fail (`Token id 151658 is out of
// vocabulary`) or, worse, sample from nonsense prompts. At start every configured server is asked for
// its ids of one fixed probe text (`POST /tokenize`, inference/server-tokenizer.ts) and they must equal
// ours; a mismatch refuses to start, naming `tokenizer.path` and what the server serves.
// `tokenizer.path: auto` loads the directory the server reports it loaded (vLLM `/v1/models` `root`,
// SGLang `/get_model_info` `tokenizer_path`), when that directory is on this machine.
// A server that cannot be asked (down, or without `/tokenize`) is only warned about: the check cannot
// tell, and a mismatch still shows as failed trajectories (and `rlf rollout`'s exit code).
import { stat } from "node:fs/promises";
import {
  type ProbeOptions,
  probeServerTokenizer,
  ServerProbeError,
  type ServerTokenizerInfo,
} from "../inference/server-tokenizer.ts";
import { configuredTokenizer, type ModelTokenizer, TokenizerFilesError } from "./model-tokenizer.ts";

/** The fixed probe text: words, digits, punctuation, code, accents, CJK, an emoji; no special tokens. */
export const TOKENIZER_PROBE_TEXT =
  'Tokenizer probe: The quick brown fox jumps over 13 lazy dogs, 2024-05-17. def f(x): return {"y": x**2}\n  Ünïcödé — 東京 😀';

/** The tokenizer does not tokenize like an inference server: the rollout refuses to start. */
export class TokenizerMismatchError extends Error {
  override name = "TokenizerMismatchError";
}

export interface TokenizerCheckOptions {
  /** The config's `tokenizer.path`: `qwen3`, `auto` or a directory. */
  path: string;
  /** Template text replacing the tokenizer's (`tokenizer.chat_template`). */
  chatTemplate?: string;
  engine: ProbeOptions["engine"];
  urls: readonly string[];
  model?: string;
  apiKey?: string;
  timeoutMs?: number;
  warn: (message: string) => void;
}

export interface CheckedTokenizer {
  tokenizer: ModelTokenizer;
  /** What each server answered (or why it could not be asked). */
  servers: (ServerTokenizerInfo | { server: string; unreachable: string })[];
}

function shortIds(ids: readonly number[]): string {
  return ids.length > 16 ? `[${ids.slice(0, 16).join(", ")}, … ${ids.length} ids]` : `[${ids.join(", ")}]`;
}

function describeServer(info: ServerTokenizerInfo): string {
  const parts = [info.model === null ? null : `model ${JSON.stringify(info.model)}`];
  if (info.modelPath !== null && info.modelPath !== info.model) parts.push(`loaded from ${info.modelPath}`);
  const known = parts.filter((p) => p !== null);
  return `${info.server}${known.length > 0 ? ` (${known.join(", ")})` : ""}`;
}

/** Compares one server's probe ids with ours; returns the mismatch message, or null when they agree. */
export function probeMismatch(
  tokenizer: ModelTokenizer,
  pathShown: string,
  info: ServerTokenizerInfo,
  text: string = TOKENIZER_PROBE_TEXT,
): string | null {
  if (info.probeIds === null) return null;
  const ours = tokenizer.encode(text);
  const theirs = info.probeIds;
  if (ours.length === theirs.length && ours.every((id, i) => id === theirs[i])) return null;
  const maxTheirs = Math.max(...theirs, -1);
  const beyond =
    maxTheirs >= tokenizer.vocabSize
      ? ` The server's ids reach ${maxTheirs}, beyond this tokenizer's ${tokenizer.vocabSize}.`
      : "";
  const hint =
    info.modelPath === null
      ? "the served model's Hugging Face directory"
      : `the Hugging Face directory of ${info.modelPath} (or \`auto\` when the server's directory is on this machine)`;
  return (
    `tokenizer.path ${pathShown} (${tokenizer.source}, ${tokenizer.vocabSize} ids) does not tokenize like the ` +
    `inference server ${describeServer(info)}: the probe text ${JSON.stringify(text)} is ${shortIds(ours)} ` +
    `here and ${shortIds(theirs)} on the server.${beyond} Set tokenizer.path to ${hint}.`
  );
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Loads the configured tokenizer (resolving `auto` through the servers) and checks it against every
 * server. Throws TokenizerMismatchError on a mismatch, TokenizerFilesError for an unusable directory.
 */
export async function checkedTokenizer(options: TokenizerCheckOptions): Promise<CheckedTokenizer> {
  const probes = await Promise.all(
    options.urls.map(async (url) => {
      try {
        return await probeServerTokenizer({
          engine: options.engine,
          url,
          text: TOKENIZER_PROBE_TEXT,
          ...(options.model === undefined ? {} : { model: options.model }),
          ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
          ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        });
      } catch (e) {
        if (e instanceof ServerProbeError) return { server: url, unreachable: e.message };
        throw e;
      }
    }),
  );
  const answered = probes.filter((p): p is ServerTokenizerInfo => !("unreachable" in p));

  let path = options.path;
  let pathShown = options.path;
  if (options.path === "auto") {
    const reported = answered.find((p) => p.modelPath !== null);
    if (reported === undefined) {
      const why = probes.map((p) =>
        "unreachable" in p ? p.unreachable : `${p.server} reports no model path`,
      );
      throw new TokenizerFilesError(
        `tokenizer.path auto takes the served model's directory from the inference server, but none reported one (${why.join("; ")}); set tokenizer.path to the model's Hugging Face directory`,
      );
    }
    if (!(await isDirectory(reported.modelPath!))) {
      throw new TokenizerFilesError(
        `tokenizer.path auto: the inference server ${reported.server} loaded ${reported.modelPath}, which is not a directory on this machine; set tokenizer.path to a local copy of that model's Hugging Face directory (tokenizer.json, tokenizer_config.json)`,
      );
    }
    path = reported.modelPath!;
    pathShown = `auto (${path})`;
  }
  const tokenizer = await configuredTokenizer(path, {
    ...(options.chatTemplate === undefined ? {} : { chatTemplate: options.chatTemplate }),
    key: options.path === "auto" ? "tokenizer.path auto →" : "tokenizer.path",
  });

  const mismatches = answered
    .map((info) => probeMismatch(tokenizer, pathShown, info))
    .filter((m): m is string => m !== null);
  if (mismatches.length > 0) throw new TokenizerMismatchError(mismatches.join("\n"));
  for (const p of probes) {
    if ("unreachable" in p) {
      options.warn(
        `cannot check tokenizer.path ${pathShown} against the inference server: ${p.unreachable} (a tokenizer that does not match the server fails every trajectory)`,
      );
    } else if (p.probeIds === null) {
      options.warn(
        `cannot check tokenizer.path ${pathShown} against the inference server ${describeServer(p)}: ${p.probeError} (no tokenize endpoint; a tokenizer that does not match the server fails every trajectory)`,
      );
    }
  }
  return { tokenizer, servers: probes };
}

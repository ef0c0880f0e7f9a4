// From a policy's turn text to what an engine would have sampled: token ids with the engine's stop rules.
// The text is encoded with the real tokenizer and, when the turn ends normally, the tokenizer's first EOS
// id is appended. Then, as vLLM and SGLang do token by token:
//  - a stop token (EOS unless ignored, or a `stop_token_ids` entry) ends generation and stays in the ids;
//  - a stop string ends generation at the token that completes it; that token stays in the ids (even when
//    it carries characters past the match, e.g. `></` for `</answer></search>`), the text is cut right
//    after the match when the stop is kept, right before it otherwise;
//  - `max_tokens` caps the ids (finish "length"); a stop token landing exactly on the cap is "length"
//    (both engines check the length first); a stop string completed by the last allowed token is "stop"
//    on vLLM (its detokenizer overrides) and "length" on SGLang.
import type { ModelTokenizer } from "@rlfactory/rollout";
import type { PolicyTurn } from "./policies/policy.ts";

export interface GenerationLimits {
  maxTokens: number;
  stop: readonly string[];
  stopTokenIds: readonly number[];
  /** Keep the matched stop string or stop token in `text` (vLLM include_stop_str_in_output, SGLang no_stop_trim). */
  includeStop: boolean;
  skipSpecialTokens: boolean;
  /** See the header: vLLM true, SGLang false. */
  stopStringWinsAtCap: boolean;
}

export interface Generated {
  ids: number[];
  text: string;
  finishReason: "stop" | "length";
  /** The stop string or stop token id that ended generation; null for "length". */
  matched: string | number | null;
  /** True when `matched` is one of the tokenizer's EOS ids (vLLM reports `stop_reason: null` then). */
  matchedEos: boolean;
}

export function generate(tokenizer: ModelTokenizer, turn: PolicyTurn, limits: GenerationLimits): Generated {
  const eos = tokenizer.eosTokenIds[0];
  if (eos === undefined) throw new Error(`tokenizer ${tokenizer.source} has no EOS token`);
  const full = tokenizer.encode(turn.text.normalize("NFC"));
  if (turn.ends) full.push(eos);
  const decode = (ids: readonly number[]) =>
    tokenizer.decode(ids, { skipSpecialTokens: limits.skipSpecialTokens });

  const stopIds = new Set([...tokenizer.eosTokenIds, ...limits.stopTokenIds]);
  const idAt = full.findIndex((id) => stopIds.has(id));
  const byId = idAt < 0 ? undefined : idAt + 1; // token count when the stop token is sampled
  const byString = firstStopString(full, limits.stop, decode);
  const cap = limits.maxTokens;

  // The earliest event wins; a tie between a stop token and a stop string goes to the token.
  const event =
    byId !== undefined && (byString === undefined || byId <= byString.count)
      ? { count: byId, stop: undefined }
      : byString;
  const stops =
    event !== undefined &&
    (event.count < cap || (event.count === cap && event.stop !== undefined && limits.stopStringWinsAtCap));
  if (event !== undefined && stops) {
    const ids = full.slice(0, event.count);
    if (event.stop === undefined) return stoppedByToken(ids, limits, decode, tokenizer);
    const decoded = decode(ids);
    const at = decoded.indexOf(event.stop);
    const text = decoded.slice(0, limits.includeStop ? at + event.stop.length : at);
    return { ids, text, finishReason: "stop", matched: event.stop, matchedEos: false };
  }
  if (full.length >= cap) {
    const ids = full.slice(0, cap);
    return { ids, text: decode(ids), finishReason: "length", matched: null, matchedEos: false };
  }
  throw new Error("the policy's turn ran out before an end token or max_tokens (a policy bug)");
}

function stoppedByToken(
  ids: number[],
  limits: GenerationLimits,
  decode: (ids: readonly number[]) => string,
  tokenizer: ModelTokenizer,
): Generated {
  const last = ids[ids.length - 1]!;
  const text = decode(limits.includeStop ? ids : ids.slice(0, -1));
  return { ids, text, finishReason: "stop", matched: last, matchedEos: tokenizer.eosTokenIds.includes(last) };
}

/**
 * The fewest tokens whose decoded text holds a stop string, and which one (the first in the request's
 * order among those present then). Binary search: once a stop string appears in a prefix's text it stays.
 */
function firstStopString(
  ids: readonly number[],
  stops: readonly string[],
  decode: (ids: readonly number[]) => string,
): { count: number; stop: string } | undefined {
  if (stops.length === 0) return undefined;
  const found = (count: number) => {
    const text = decode(ids.slice(0, count));
    return stops.find((s) => text.includes(s));
  };
  if (found(ids.length) === undefined) return undefined;
  let lo = 1;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (found(mid) === undefined) lo = mid + 1;
    else hi = mid;
  }
  return { count: lo, stop: found(lo)! };
}

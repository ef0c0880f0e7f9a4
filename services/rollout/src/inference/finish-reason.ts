// Engines' finish reasons, mapped to the contract's three: vLLM `finish_reason` and SGLang
// `meta_info.finish_reason.type` both say "stop" (end token or stop string), "length" or "abort".
import { type FinishReason, InferenceError } from "./types.ts";

const KNOWN = new Map<string, FinishReason>([
  ["stop", "stop"],
  ["length", "length"],
  ["abort", "abort"],
]);

export function toFinishReason(value: string | null | undefined, where: string): FinishReason {
  const reason = value == null ? undefined : KNOWN.get(value);
  if (!reason) {
    throw new InferenceError(
      "BAD_RESPONSE",
      `${where} returned finish reason ${JSON.stringify(value ?? null)}; expected "stop", "length" or "abort"`,
    );
  }
  return reason;
}

// The caller's AbortSignal, made prompt: a cancelled request rejects at once with
// `InferenceError("CANCELLED")`, even while it waits in the concurrency queue, in a retry back-off or
// on a value shared with other callers (the work underneath is aborted through the same signal).
import { raceSignal } from "@rlfactory/kit";
import { InferenceError } from "./types.ts";

export function cancelledError(signal: AbortSignal): InferenceError {
  const reason: unknown = signal.reason;
  const detail = reason instanceof Error && reason.name !== "AbortError" ? `: ${reason.message}` : "";
  return new InferenceError("CANCELLED", `inference request cancelled by the caller${detail}`, {
    cause: reason,
  });
}

/**
 * Settles like `work`, or rejects with `error(signal)` (default: InferenceError CANCELLED) as soon as
 * `signal` aborts, whichever comes first.
 */
export async function raceAbort<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
  error: (signal: AbortSignal) => Error = cancelledError,
): Promise<T> {
  if (!signal) return work;
  try {
    return await raceSignal(work, signal);
  } catch (e) {
    if (!signal.aborted) throw e;
    work.catch(() => {}); // its own failure, after the abort, is no longer anyone's concern
    throw error(signal);
  }
}

// Caller gone → AbortSignal: the one place a server learns that nobody waits for its answer any more.
//   - gRPC: the client cancelled the call, or its deadline passed;
//   - HTTP: the client hung up before the response was complete.
// Work started for the caller carries the signal, so it stops when the caller goes.
import type { ServerResponse } from "node:http";
import type { ServerUnaryCall, ServerWritableStream } from "@grpc/grpc-js";

export interface CallerGone {
  /**
   * Aborts when the client cancels (reason: an Error) or the call's deadline passes (reason: a
   * DOMException named "TimeoutError", as `AbortSignal.timeout` gives).
   */
  signal: AbortSignal;
  /** Milliseconds left on the call's deadline when it arrived; undefined without a deadline. */
  remainingMs: number | undefined;
  /** Stops watching the call; call it once the call is answered. */
  done(): void;
}

/**
 * grpc-js's deadline timer and Date.now() read different clocks (and round to the millisecond): a
 * "cancelled" this close to the deadline is the deadline.
 */
const DEADLINE_SLACK_MS = 20;

/**
 * A signal that aborts when the client cancels the gRPC call or its deadline passes. grpc-js reports
 * both as "cancelled" (it runs the server-side deadline timer itself); a "cancelled" at or after the
 * deadline is the deadline. No timer of our own and no listener left behind: `done()` removes it,
 * so a call answered in time costs one listener.
 */
export function callerGone(
  call: ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>,
): CallerGone {
  const controller = new AbortController();
  const deadline = call.getDeadline();
  const deadlineAt = deadline instanceof Date ? deadline.getTime() : deadline;
  const ms = deadlineAt - Date.now();
  const onCancelled = () =>
    controller.abort(
      Date.now() >= deadlineAt - DEADLINE_SLACK_MS
        ? new DOMException("the call's deadline passed", "TimeoutError")
        : new Error("the client cancelled the call"),
    );
  call.once("cancelled", onCancelled);
  return {
    signal: controller.signal,
    remainingMs: Number.isFinite(ms) ? Math.max(0, ms) : undefined,
    done: () => call.off("cancelled", onCancelled),
  };
}

/** A signal that aborts when the HTTP client hangs up before the response is complete. */
export function httpCallerGone(response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  response.once("close", () => {
    if (!response.writableFinished) controller.abort(new Error("the client disconnected"));
  });
  return controller.signal;
}

// Coded call failures: one class, one guard, one mapping from whatever a lower layer threw.
//
// A tool's own failure (`isError: true` in an MCP result) is NOT an error here: it is a normal result
// and never passes through this file. Everything below is a failure of the call itself.
import { status as GrpcStatus } from "@grpc/grpc-js";
import type { ErrorCode } from "@rlfactory/proto/types/ErrorCode";
import { isBrokenCircuitError, isBulkheadRejectedError, isTaskCancelledError } from "cockatiel";

export type CallErrorCode = Exclude<ErrorCode, "OK" | number>;

/** A typed, human-readable call failure. `message` is what the caller sees: never a stack trace. */
export class GatewayError extends Error {
  readonly code: CallErrorCode;
  constructor(code: CallErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "GatewayError";
    this.code = code;
  }
}

export const isGatewayError = (e: unknown): e is GatewayError => e instanceof GatewayError;

/**
 * A call ended by its caller, not by the server: the caller's own deadline (shorter than the server's
 * configured one) passed, or the caller went away. Reads as TIMEOUT / CANCELLED to the caller, but is
 * never the server's fault, so it never counts against the server's circuit breaker.
 */
export class CallerAbortError extends GatewayError {
  constructor(code: "TIMEOUT" | "CANCELLED", message: string) {
    super(code, message);
    this.name = "CallerAbortError";
  }
}

export const isCallerAbort = (e: unknown): e is CallerAbortError => e instanceof CallerAbortError;

/** Codes that say the upstream (not the caller) is unhealthy: these count against its circuit breaker. */
const UPSTREAM_FAULTS: ReadonlySet<CallErrorCode> = new Set(["TIMEOUT", "UNAVAILABLE", "UPSTREAM_ERROR"]);
/** An upstream fault: one of UPSTREAM_FAULTS, and not a call its caller ended (CallerAbortError). */
export const isUpstreamFault = (e: unknown): boolean =>
  isGatewayError(e) && UPSTREAM_FAULTS.has(e.code) && !isCallerAbort(e);

/** Codes worth another attempt at an idempotent tool (never CIRCUIT_OPEN, never a caller mistake). */
export const isRetryable = (e: unknown): boolean =>
  isGatewayError(e) && (e.code === "UNAVAILABLE" || e.code === "UPSTREAM_ERROR");

// JSON-RPC error codes an MCP server may answer with (the SDK raises them as errors with `.code`).
const JSONRPC_INVALID_PARAMS = -32602;
const JSONRPC_METHOD_NOT_FOUND = -32601;
const JSONRPC_REQUEST_TIMEOUT = -32001;
const JSONRPC_CONNECTION_CLOSED = -32000;
const SDK_UNAVAILABLE = new Set([
  "CONNECTION_CLOSED",
  "NOT_CONNECTED",
  "SEND_FAILED",
  "CLIENT_HTTP_FAILED_TO_OPEN_STREAM",
]);

/** `s` cut to `n` characters with an ellipsis (for caller-supplied names inside messages). */
export function truncate(s: string, n = 100): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

/** The first line of a message, bounded: upstream texts can be long or multi-line tracebacks. */
export function shortMessage(text: string, max = 300): string {
  const firstLine = text.split("\n", 1)[0]?.trim() ?? "";
  return firstLine.length > max ? `${firstLine.slice(0, max)}…` : firstLine;
}

/**
 * Maps anything thrown below the gateway's policy stack to a GatewayError.
 * `context` names the upstream/tool for the message.
 */
export function toGatewayError(err: unknown, context: string): GatewayError {
  if (isGatewayError(err)) return err;
  if (isBrokenCircuitError(err)) {
    return new GatewayError("CIRCUIT_OPEN", `${context}: circuit open after repeated failures; retry later`);
  }
  if (isBulkheadRejectedError(err)) {
    return new GatewayError("RATE_LIMITED", `${context}: too many calls in flight and the queue is full`);
  }
  if (isTaskCancelledError(err)) return new GatewayError("CANCELLED", `${context}: call cancelled`);
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  if (typeof code === "number") {
    if (code === JSONRPC_INVALID_PARAMS) {
      return new GatewayError("INVALID_ARGUMENTS", `${context}: ${shortMessage(stripMcpPrefix(message))}`);
    }
    if (code === JSONRPC_METHOD_NOT_FOUND) {
      return new GatewayError("UNKNOWN_TOOL", `${context}: ${shortMessage(stripMcpPrefix(message))}`);
    }
    if (code === JSONRPC_REQUEST_TIMEOUT)
      return new GatewayError("TIMEOUT", `${context}: upstream timed out`);
    if (code === JSONRPC_CONNECTION_CLOSED) {
      return new GatewayError("UNAVAILABLE", `${context}: connection to the tool server closed`);
    }
    return new GatewayError("UPSTREAM_ERROR", `${context}: ${shortMessage(stripMcpPrefix(message))}`);
  }
  if (typeof code === "string") {
    // The MCP SDK's own errors (SdkErrorCode) and Node's network errors.
    if (code === "REQUEST_TIMEOUT") return new GatewayError("TIMEOUT", `${context}: upstream timed out`);
    if (
      SDK_UNAVAILABLE.has(code) ||
      /^E(CONNREFUSED|CONNRESET|PIPE|HOSTUNREACH|NOTFOUND)|^UND_ERR/.test(code)
    ) {
      return new GatewayError(
        "UNAVAILABLE",
        `${context}: tool server unavailable (${shortMessage(message)})`,
      );
    }
    if (code === "INVALID_RESULT" || code.startsWith("CLIENT_HTTP_")) {
      return new GatewayError("UPSTREAM_ERROR", `${context}: ${shortMessage(message)}`);
    }
  }
  if (/connection closed|not connected|fetch failed|socket hang up|ECONNREFUSED|ECONNRESET/i.test(message)) {
    return new GatewayError("UNAVAILABLE", `${context}: ${shortMessage(message)}`);
  }
  return new GatewayError("INTERNAL", `${context}: internal gateway error`, { cause: err });
}

function stripMcpPrefix(message: string): string {
  return message.replace(/^MCP error -?\d+:\s*/, "");
}

/** gRPC status for RPC-level failures (per-call failures travel inside ToolResult instead). */
export function grpcStatusFor(code: CallErrorCode): GrpcStatus {
  switch (code) {
    case "TIMEOUT":
      return GrpcStatus.DEADLINE_EXCEEDED;
    case "UNAVAILABLE":
    case "CIRCUIT_OPEN":
      return GrpcStatus.UNAVAILABLE;
    case "UNKNOWN_TOOL":
    case "EPISODE_NOT_FOUND":
      return GrpcStatus.NOT_FOUND;
    case "EPISODE_LOST":
      return GrpcStatus.DATA_LOSS;
    case "INVALID_ARGUMENTS":
      return GrpcStatus.INVALID_ARGUMENT;
    case "ARGUMENTS_TOO_LARGE":
    case "OUTPUT_TOO_LARGE":
    case "RATE_LIMITED":
    case "BUDGET_EXCEEDED":
      return GrpcStatus.RESOURCE_EXHAUSTED;
    case "CANCELLED":
      return GrpcStatus.CANCELLED;
    case "UNSUPPORTED":
      return GrpcStatus.UNIMPLEMENTED;
    default:
      return GrpcStatus.INTERNAL;
  }
}

/** HTTP status for the admin surface's `:call` route when the call itself failed. */
export function httpStatusFor(code: CallErrorCode): number {
  switch (code) {
    case "UNKNOWN_TOOL":
    case "EPISODE_NOT_FOUND":
      return 404;
    case "EPISODE_LOST":
      return 410;
    case "INVALID_ARGUMENTS":
      return 400;
    case "ARGUMENTS_TOO_LARGE":
    case "OUTPUT_TOO_LARGE":
      return 413;
    case "RATE_LIMITED":
    case "BUDGET_EXCEEDED":
      return 429;
    case "TIMEOUT":
      return 504;
    case "UNAVAILABLE":
    case "CIRCUIT_OPEN":
      return 503;
    case "UPSTREAM_ERROR":
      return 502;
    case "CANCELLED":
      return 499;
    case "UNSUPPORTED":
      return 501;
    default:
      return 500;
  }
}

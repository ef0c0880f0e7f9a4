// A gRPC status error as grpc-js's handlers take it (`code`, `details`, `metadata`): what a request-level
// failure (auth, batch size, an episode operation's typed failure) becomes on the wire; and what every
// handler, unary or streaming, does with a call's API key and with a failure that is not one.
import { Metadata, status } from "@grpc/grpc-js";
import type { Logger } from "pino";

export interface RpcError extends Error {
  code: status;
  details: string;
  metadata: Metadata;
}

export function rpcError(code: status, details: string): RpcError {
  return Object.assign(new Error(details), { code, details, metadata: new Metadata() });
}

export function isRpcError(e: unknown): e is RpcError {
  return e instanceof Error && typeof (e as Partial<RpcError>).code === "number" && "details" in e;
}

/** The details of the UNAUTHENTICATED status every handler answers a missing or wrong key with. */
export const UNAUTHENTICATED_DETAILS = "missing or invalid API key (authorization: Bearer KEY)";

/** The call's `authorization` metadata (its first value), as the API key check takes it. */
export function authorizationOf(md: Metadata): string | undefined {
  const v = md.get("authorization")[0];
  return typeof v === "string" ? v : undefined;
}

/**
 * What a handler's failure becomes on the wire: an RpcError as it is; anything else INTERNAL with
 * "internal gateway error" (the caller sees nothing of it), its cause logged with the method.
 */
export function wireError(err: unknown, method: string, log: Logger | undefined): RpcError {
  if (isRpcError(err)) return err;
  log?.error({ err, method }, "internal gateway error");
  return rpcError(status.INTERNAL, "internal gateway error");
}

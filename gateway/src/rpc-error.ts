// A gRPC status error as grpc-js's handlers take it (`code`, `details`, `metadata`): what a request-level
// failure (auth, batch size, an episode operation's typed failure) becomes on the wire.
import { Metadata, type status } from "@grpc/grpc-js";

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

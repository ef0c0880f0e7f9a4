// The rollout service's request-level errors and their one mapping to gRPC and HTTP status. A single
// trajectory's failure is never one of these: it travels inside the group (status `failed`).
import { status } from "@grpc/grpc-js";
import { RolloutRequestError } from "@rlfactory/clients";
import { InvalidTaskError } from "../rollout/create-rollout-engine.ts";

/** The caller sent no API key, or an unknown one, while `service.auth` is on. */
export class UnauthenticatedError extends Error {
  override name = "UnauthenticatedError";
  readonly code = "UNAUTHENTICATED";
}

/** A request's `inference.urls` names a server outside the allow-list; nothing was sent to it. */
export class InferenceUrlNotAllowedError extends Error {
  override name = "InferenceUrlNotAllowedError";
  readonly code = "INFERENCE_URL_NOT_ALLOWED";
}

/** Whether the request itself is at fault: ours (validation) or the engine's (a prompt it cannot render). */
export function isBadRequest(e: unknown): e is Error {
  return e instanceof RolloutRequestError || e instanceof InvalidTaskError;
}

/** gRPC status and details for an error thrown while serving a request. */
export function grpcStatusFor(e: unknown): { code: status; details: string } {
  if (e instanceof UnauthenticatedError) return { code: status.UNAUTHENTICATED, details: e.message };
  if (e instanceof InferenceUrlNotAllowedError) return { code: status.PERMISSION_DENIED, details: e.message };
  if (isBadRequest(e)) return { code: status.INVALID_ARGUMENT, details: e.message };
  return { code: status.INTERNAL, details: `rollout failed: ${messageOf(e)}` };
}

/** HTTP status and `{ error }` body for an error thrown while serving a request. */
export function httpErrorFor(e: unknown): { statusCode: number; body: { error: string } } {
  if (e instanceof UnauthenticatedError) return { statusCode: 401, body: { error: e.message } };
  if (e instanceof InferenceUrlNotAllowedError) return { statusCode: 403, body: { error: e.message } };
  if (isBadRequest(e)) return { statusCode: 400, body: { error: e.message } };
  return { statusCode: 500, body: { error: `rollout failed: ${messageOf(e)}` } };
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

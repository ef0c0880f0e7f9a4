// The training loop's errors: a Tinker API call that failed (with the endpoint and why), and a training
// run that cannot start or resume (bad config, missing or mismatched checkpoint).

export type TinkerErrorCode =
  /** The server could not be reached, or kept answering 5xx after every retry. */
  | "UNAVAILABLE"
  /** An HTTP request (or a future) ran out of time. */
  | "TIMEOUT"
  /** The server answered 4xx: the request was refused (the message carries the server's detail). */
  | "HTTP_ERROR"
  /** A future finished as failed (SkyRL: 400 from retrieve_future; Tinker: `{error, category}`). */
  | "REQUEST_FAILED"
  /** A 2xx body that is not JSON or does not match the pinned schema. */
  | "BAD_RESPONSE"
  /** The caller's signal aborted the call. */
  | "CANCELLED";

export class TinkerApiError extends Error {
  override name = "TinkerApiError";
  readonly code: TinkerErrorCode;
  /** The endpoint path, e.g. `/api/v1/forward_backward`. */
  readonly endpoint: string;
  readonly status: number | undefined;

  constructor(
    code: TinkerErrorCode,
    endpoint: string,
    message: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(`${endpoint}: ${message}`, { cause: options.cause });
    this.code = code;
    this.endpoint = endpoint;
    this.status = options.status;
  }
}

export function isTinkerApiError(e: unknown): e is TinkerApiError {
  return e instanceof TinkerApiError;
}

/** The run cannot start or resume as configured (printed as is by `rlf train`). */
export class TrainRunError extends Error {
  override name = "TrainRunError";
}

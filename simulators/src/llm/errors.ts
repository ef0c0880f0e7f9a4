// The simulator's HTTP errors, in vLLM's shape on every route:
// `{"error": {"message", "type", "param", "code"}}` with `code` the HTTP status.
import { z } from "zod";

export type ErrorType =
  | "BadRequestError"
  | "NotFoundError"
  | "ServiceUnavailableError"
  | "InternalServerError";

const STATUS: Record<ErrorType, number> = {
  BadRequestError: 400,
  NotFoundError: 404,
  ServiceUnavailableError: 503,
  InternalServerError: 500,
};

export class SimulatedLlmError extends Error {
  override name = "SimulatedLlmError";
  readonly type: ErrorType;
  readonly param: string | null;
  constructor(type: ErrorType, message: string, param: string | null = null) {
    super(message);
    this.type = type;
    this.param = param;
  }
  get status(): number {
    return STATUS[this.type];
  }
  toBody(): ErrorBody {
    return errorBody(this.type, this.message, this.param);
  }
}

export interface ErrorBody {
  error: { message: string; type: ErrorType; param: string | null; code: number };
}

export function errorBody(type: ErrorType, message: string, param: string | null = null): ErrorBody {
  return { error: { message, type, param, code: STATUS[type] } };
}

export function badRequest(message: string, param: string | null = null): SimulatedLlmError {
  return new SimulatedLlmError("BadRequestError", message, param);
}

/** A zod failure as a 400 naming the first offending field. */
export function invalidBody(error: z.ZodError): SimulatedLlmError {
  const first = error.issues[0];
  const param = first && first.path.length > 0 ? first.path.join(".") : null;
  return badRequest(z.prettifyError(error), param);
}

// Worker thread entry: evaluates expressions posted by the isolated evaluator, one at a time.
import { parentPort } from "node:worker_threads";
import { type EvaluationReply, EvaluationRequest } from "./evaluation-messages.ts";
import { EvaluationError, evaluateExpression } from "./math-evaluator.ts";

const port = parentPort;
if (port === null) throw new Error("evaluator-worker.ts must run as a worker thread");

port.on("message", (raw: unknown) => {
  const request = EvaluationRequest.parse(raw);
  let reply: EvaluationReply;
  try {
    reply = { id: request.id, ok: true, result: evaluateExpression(request.expression, request.mode) };
  } catch (error) {
    const message =
      error instanceof EvaluationError ? error.message : "The expression could not be evaluated";
    reply = { id: request.id, ok: false, error: message };
  }
  port.postMessage(reply);
});

port.postMessage({ ready: true });

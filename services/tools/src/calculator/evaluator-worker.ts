// Worker thread entry: evaluates expressions posted by the isolated evaluator, one at a time.
// Everything a worker needs is built before it says it is ready (mathjs loaded, one instance per
// number mode), so an expression's deadline and heap cap only ever measure the expression itself.
import { getHeapStatistics } from "node:v8";
import { parentPort } from "node:worker_threads";
import { type EvaluationReply, EvaluationRequest, type WorkerReady } from "./evaluation-messages.ts";
import { hideFunctionSource } from "./hidden-function-source.ts";
import { EvaluationError, evaluateExpression, prepareNumberModes } from "./math-evaluator.ts";

const port = parentPort;
if (port === null) throw new Error("evaluator-worker.ts must run as a worker thread");

const heapUsedMb = () => Math.round(getHeapStatistics().used_heap_size / 2 ** 20);

hideFunctionSource();
prepareNumberModes();

port.on("message", (raw: unknown) => {
  const request = EvaluationRequest.parse(raw);
  let reply: EvaluationReply;
  try {
    const result = evaluateExpression(request.expression, request.mode);
    reply = { id: request.id, ok: true, result, heapUsedMb: heapUsedMb() };
  } catch (error) {
    const message =
      error instanceof EvaluationError ? error.message : "The expression could not be evaluated";
    reply = { id: request.id, ok: false, error: message, heapUsedMb: heapUsedMb() };
  }
  port.postMessage(reply);
});

const ready: WorkerReady = { ready: true, heapUsedMb: heapUsedMb() };
port.postMessage(ready);

// Worker thread entry of the calculator's worker pool (@rlfactory/kit/worker-pool, on piscina):
// evaluates one expression per task. Everything a worker needs is built when this module loads
// (mathjs, one instance per number mode), before the pool's warm-up task answers, so an expression's
// deadline and heap cap only ever measure the expression itself.
import { getHeapStatistics } from "node:v8";
import { type EvaluationReply, EvaluationRequest } from "./evaluation-messages.ts";
import { hideFunctionSource } from "./hidden-function-source.ts";
import { EvaluationError, evaluateExpression, prepareNumberModes } from "./math-evaluator.ts";

// Never onto the server's stdout, which is the stdio MCP transport: this thread's writes go to stderr.
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

const heapUsedMb = () => Math.round(getHeapStatistics().used_heap_size / 2 ** 20);

hideFunctionSource();
prepareNumberModes();

export default function evaluateInWorker(raw: unknown): EvaluationReply {
  const request = EvaluationRequest.parse(raw);
  try {
    const result = evaluateExpression(request.expression, request.mode);
    return { ok: true, result, heapUsedMb: heapUsedMb() };
  } catch (error) {
    const message =
      error instanceof EvaluationError ? error.message : "The expression could not be evaluated";
    return { ok: false, error: message, heapUsedMb: heapUsedMb() };
  }
}

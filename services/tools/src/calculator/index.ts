// The `calculator` tool server for `rlf tool calculator [--workers N] [--per-caller N] [--timeout-ms MS]`: safe
// arithmetic (mathjs, restricted) in a pool of worker threads with a deadline per expression.

export { calculatorServerEntry } from "./calculator-entry.ts";
export { createCalculatorServer } from "./calculator-server.ts";
export { EVALUATOR_DEFAULTS, type IsolatedEvaluatorOptions } from "./isolated-evaluator.ts";

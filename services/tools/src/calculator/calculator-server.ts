// The `calculator` tool server: one tool, `calculate`, evaluating a math expression with mathjs in a
// pool of worker threads, each expression with its own deadline.
import { createToolServer, defineTool, ToolError, type ToolServer } from "@rlfactory/toolkit";
import { z } from "zod";
import { callerOf } from "../fair-scheduling/caller-identity.ts";
import { NumberMode } from "./evaluation-messages.ts";
import { IsolatedEvaluator, type IsolatedEvaluatorOptions } from "./isolated-evaluator.ts";
import { formatResult, MAX_EXPRESSION_LENGTH } from "./math-evaluator.ts";

export function createCalculatorServer(opts: IsolatedEvaluatorOptions = {}): ToolServer {
  const evaluator = new IsolatedEvaluator(opts);
  // One worker up front (a server that is never called stays small); the rest start on demand.
  void evaluator.warmUp(1);
  const calculate = defineTool({
    name: "calculate",
    title: "Calculator",
    description:
      "Evaluates a math expression (mathjs syntax): arithmetic, ^, !, functions such as sqrt, sin, log, " +
      "round, gcd, mean, matrices like [1, 2; 3, 4], units like `2 inch to cm`. One expression; no variables.",
    input: z.object({
      expression: z.string().min(1).max(MAX_EXPRESSION_LENGTH).describe("e.g. 12 * (3 + 4)"),
      number: NumberMode.optional().describe(
        "number (default, IEEE double), fraction (exact rationals: 1/3 + 1/6 = 1/2) or bignumber (64 significant digits)",
      ),
    }),
    output: z.object({
      result: z
        .union([z.number(), z.string()])
        .describe("a number, or text for other values (matrices, units...)"),
      expression: z.string(),
    }),
    annotations: { readOnlyHint: true, idempotentHint: true },
    handler: async ({ expression, number }, ctx) => {
      const outcome = await evaluator.evaluate(expression, ctx.signal, number ?? "number", callerOf(ctx));
      if (!outcome.ok) throw new ToolError(outcome.error);
      return { result: outcome.result, expression };
    },
    render: ({ result, expression }) => `${expression.trim()} = ${formatResult(result)}`,
  });
  return createToolServer({ name: "calculator", version: "0.1.0", tools: [calculate] });
}

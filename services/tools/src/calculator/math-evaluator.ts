// The calculator's expression evaluation: mathjs with the parser's dangerous surface removed.
//
// Following mathjs' security guidance, functions that alter mathjs or parse/compile further input
// (import, createUnit, evaluate, parse, simplify, derivative, ...) are replaced by stubs that throw,
// so expressions cannot reach them. On top of that, expressions may not assign variables or
// define functions (no recursion: an expression is a single formula), and results must be values
// of bounded size. CPU and memory bounds, and hiding function source (hidden-function-source.ts),
// are enforced around this, in the isolated evaluator's worker threads.
import { all, create, type MathJsInstance, type MathNode } from "mathjs";
import { NumberMode } from "./evaluation-messages.ts";

export const MAX_EXPRESSION_LENGTH = 1_000;
export const MAX_RESULT_ELEMENTS = 1_000;

/** A problem with the expression, worded for the model. */
export class EvaluationError extends Error {
  override readonly name = "EvaluationError";
}

/** Digits kept by the `bignumber` mode. */
export const BIGNUMBER_PRECISION = 64;

export const DISABLED_FUNCTIONS = [
  "import",
  "createUnit",
  "evaluate",
  "parse",
  "compile",
  "parser",
  "simplify",
  "simplifyConstant",
  "simplifyCore",
  "symbolicEqual",
  "derivative",
  "rationalize",
  "resolve",
  "leafCount",
  "config",
  "reviver",
  "replacer",
] as const;

interface Instance {
  math: MathJsInstance;
  /** Kept before the namespace entries are disabled. */
  parse: MathJsInstance["parse"];
}

/** One restricted mathjs instance per number mode, created on first use. */
const instances = new Map<NumberMode, Instance>();

function instance(mode: NumberMode): Instance {
  let found = instances.get(mode);
  if (!found) {
    const math = create(
      all!,
      mode === "number"
        ? {}
        : mode === "fraction"
          ? { number: "Fraction" }
          : { number: "BigNumber", precision: BIGNUMBER_PRECISION },
    );
    const parse = math.parse;
    math.import(
      Object.fromEntries(
        DISABLED_FUNCTIONS.map((name) => [
          name,
          () => {
            throw new EvaluationError(`Function ${name} is not allowed`);
          },
        ]),
      ),
      { override: true },
    );
    found = { math, parse };
    instances.set(mode, found);
  }
  return found;
}

/** Builds the restricted instance of every number mode now rather than on an expression's first use. */
export function prepareNumberModes(): void {
  for (const mode of NumberMode.options) instance(mode);
}

const math = instance("number").math;

const FORBIDDEN_NODES: Record<string, string> = {
  AssignmentNode: "Assignments are not allowed",
  FunctionAssignmentNode: "Function definitions are not allowed",
  BlockNode: "Only a single expression is allowed",
};

function shortMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.split("\n")[0] ?? message;
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}

function elementCount(value: unknown): number {
  return (math.size(value as never) as unknown as { valueOf(): number[] })
    .valueOf()
    .reduce((a, b) => a * b, 1);
}

/**
 * How results are written: 14 significant digits (floating-point noise rounded away), positional below
 * 10^15. mathjs's default switches to exponents from 10^5, which turned 27609 * 6104 into
 * "1.68525336e+8": a model copying the result then answers with the wrong text.
 */
const DISPLAY = { precision: 14, upperExp: 15 } as const;

/** The JSON-friendly form of a result: a finite number as is, anything else formatted as text. */
function present(value: unknown): number | string {
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (value === undefined || value === null) throw new EvaluationError("The expression has no value");
  if (typeof value === "function") throw new EvaluationError("The result is a function, not a value");
  if (math.isMatrix(value) || Array.isArray(value)) {
    const count = elementCount(value);
    if (count > MAX_RESULT_ELEMENTS) {
      throw new EvaluationError(
        `The result has ${count} elements; at most ${MAX_RESULT_ELEMENTS} are allowed`,
      );
    }
  }
  if (typeof value === "boolean" || typeof value === "string") return String(value);
  return math.format(value, DISPLAY);
}

/** Evaluates one expression; throws EvaluationError with a short message on any problem. */
export function evaluateExpression(expression: string, mode: NumberMode = "number"): number | string {
  const { math: m, parse } = instance(mode);
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new EvaluationError(`The expression is longer than ${MAX_EXPRESSION_LENGTH} characters`);
  }
  let node: MathNode;
  try {
    node = parse(expression);
  } catch (error) {
    throw new EvaluationError(shortMessage(error));
  }
  node.traverse((child) => {
    const refusal = FORBIDDEN_NODES[child.type];
    if (refusal !== undefined) throw new EvaluationError(refusal);
  });
  let value: unknown;
  try {
    value = node.compile().evaluate({});
  } catch (error) {
    throw error instanceof EvaluationError ? error : new EvaluationError(shortMessage(error));
  }
  // Exact modes answer in text so no digit is lost to a double: "1/3", "0.1000…0001".
  if (mode !== "number" && (m.isFraction(value) || m.isBigNumber(value)))
    return m.format(value as never, { fraction: "ratio" });
  return present(value);
}

/** `value` as the calculator shows it (numbers rounded to 14 significant digits, see DISPLAY). */
export function formatResult(value: number | string): string {
  return typeof value === "number" ? math.format(value, DISPLAY) : value;
}

// The `calculate_output` formula of a multi grader, e.g. `0.5 * accuracy + 0.5 * max(rouge, bleu)`.
// Parsed by jsep into an AST and evaluated by walking it against an allowlist — numbers, the sub-graders'
// names, + - * / (binary and unary), parentheses and a few math functions. Nothing else is accepted,
// and nothing is ever handed to eval/Function.
import jsep from "jsep";
import { RuleGraderError } from "./rule-grader-error.ts";

/** Functions a formula may call, as in OpenAI's multi grader. */
const FUNCTIONS: Record<string, { arity: "one" | "many"; fn: (...xs: number[]) => number }> = {
  min: { arity: "many", fn: Math.min },
  max: { arity: "many", fn: Math.max },
  abs: { arity: "one", fn: Math.abs },
  floor: { arity: "one", fn: Math.floor },
  ceil: { arity: "one", fn: Math.ceil },
  sqrt: { arity: "one", fn: Math.sqrt },
  exp: { arity: "one", fn: Math.exp },
  log: { arity: "one", fn: Math.log },
};

const BINARY: Record<string, (a: number, b: number) => number> = {
  "+": (a, b) => a + b,
  "-": (a, b) => a - b,
  "*": (a, b) => a * b,
  "/": (a, b) => a / b,
};

const UNARY: Record<string, (a: number) => number> = {
  "-": (a) => -a,
  "+": (a) => a,
};

type Node =
  | { kind: "number"; value: number }
  | { kind: "name"; name: string }
  | { kind: "unary"; op: (a: number) => number; arg: Node }
  | { kind: "binary"; op: (a: number, b: number) => number; left: Node; right: Node }
  | { kind: "call"; fn: (...xs: number[]) => number; args: Node[] };

export interface Formula {
  readonly source: string;
  /** The names the formula reads. */
  readonly names: ReadonlySet<string>;
  evaluate(values: Readonly<Record<string, number>>): number;
}

function invalid(source: string, why: string): RuleGraderError {
  return new RuleGraderError("INVALID_GRADER", `calculate_output ${JSON.stringify(source)}: ${why}`);
}

/** Parses and checks a formula over `names`; throws INVALID_GRADER on bad syntax or unknown names. */
export function compileFormula(source: string, names: Iterable<string>): Formula {
  const known = new Set(names);
  let ast: jsep.Expression;
  try {
    ast = jsep(source);
  } catch (error) {
    throw invalid(source, (error as Error).message);
  }
  const used = new Set<string>();

  const build = (node: jsep.Expression): Node => {
    switch (node.type) {
      case "Literal": {
        const { value } = node as jsep.Literal;
        if (typeof value !== "number" || !Number.isFinite(value)) {
          throw invalid(source, `only numbers are allowed, not ${(node as jsep.Literal).raw}`);
        }
        return { kind: "number", value };
      }
      case "Identifier": {
        const { name } = node as jsep.Identifier;
        if (!known.has(name)) {
          throw invalid(source, `unknown name "${name}" (sub-graders: ${[...known].join(", ") || "none"})`);
        }
        used.add(name);
        return { kind: "name", name };
      }
      case "UnaryExpression": {
        const { operator, argument } = node as jsep.UnaryExpression;
        const op = UNARY[operator];
        if (!op) throw invalid(source, `operator "${operator}" is not allowed (use + - * / and parentheses)`);
        return { kind: "unary", op, arg: build(argument) };
      }
      case "BinaryExpression": {
        const { operator, left, right } = node as jsep.BinaryExpression;
        const op = BINARY[operator];
        if (!op) throw invalid(source, `operator "${operator}" is not allowed (use + - * / and parentheses)`);
        return { kind: "binary", op, left: build(left), right: build(right) };
      }
      case "CallExpression": {
        const { callee, arguments: args } = node as jsep.CallExpression;
        const fnName = callee.type === "Identifier" ? (callee as jsep.Identifier).name : undefined;
        const entry = fnName === undefined ? undefined : FUNCTIONS[fnName];
        if (!entry) {
          throw invalid(source, `only these functions can be called: ${Object.keys(FUNCTIONS).join(", ")}`);
        }
        if (entry.arity === "one" ? args.length !== 1 : args.length === 0) {
          throw invalid(
            source,
            `${fnName} takes ${entry.arity === "one" ? "one argument" : "one or more arguments"}`,
          );
        }
        return { kind: "call", fn: entry.fn, args: args.map(build) };
      }
      default:
        throw invalid(
          source,
          `${node.type} is not allowed (numbers, names, + - * /, parentheses, functions)`,
        );
    }
  };
  const root = build(ast);

  const run = (node: Node, values: Readonly<Record<string, number>>): number => {
    switch (node.kind) {
      case "number":
        return node.value;
      case "name": {
        const value = values[node.name];
        if (value === undefined) throw invalid(source, `no value for "${node.name}"`);
        return value;
      }
      case "unary":
        return node.op(run(node.arg, values));
      case "binary":
        return node.op(run(node.left, values), run(node.right, values));
      case "call":
        return node.fn(...node.args.map((arg) => run(arg, values)));
    }
  };

  return {
    source,
    names: used,
    evaluate(values) {
      const result = run(root, values);
      if (!Number.isFinite(result)) {
        throw invalid(source, `evaluated to ${result} with ${JSON.stringify(values)} (division by zero?)`);
      }
      return result;
    },
  };
}

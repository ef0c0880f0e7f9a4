// gradeRule: validates a rule-grader spec (grader-spec.ts) and scores one response with it. Every
// result is a score in [0, 1] with a detail record saying how it was reached; a bad spec, or a grader
// that needs a reference when none was given, is an INVALID_REQUEST failure — never a silent 0.
import { z } from "zod";
import { JudgeError } from "../judge-types.ts";
import { compileFormula } from "./formula.ts";
import { type GraderSpec, graderSpecSchema, MAX_GRADER_DEPTH } from "./grader-spec.ts";
import { stringCheck } from "./string-check.ts";
import { textSimilarity } from "./text-similarity.ts";

export interface RuleInput {
  response: string;
  reference?: string | undefined;
  task?: string | undefined;
}

export interface RuleGrade {
  /** In [0, 1]. */
  score: number;
  detail: Record<string, unknown>;
}

/** Parses a grader spec; throws INVALID_REQUEST naming what is wrong. */
export function parseGraderSpec(grader: unknown): GraderSpec {
  const parsed = graderSpecSchema.safeParse(grader);
  if (!parsed.success) {
    throw new JudgeError("INVALID_REQUEST", `invalid rule grader:\n${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

export function gradeRule(grader: unknown, input: RuleInput): RuleGrade {
  return grade(parseGraderSpec(grader), input, "grader", 1);
}

function referenceFor(
  spec: { type: string; reference?: string | undefined },
  input: RuleInput,
  path: string,
) {
  const own = spec.reference;
  if (own !== undefined && own.trim() !== "") return { reference: own, source: "grader" };
  if (input.reference !== undefined && input.reference.trim() !== "") {
    return { reference: input.reference, source: "request" };
  }
  throw new JudgeError(
    "INVALID_REQUEST",
    `${path} (${spec.type}) needs a reference: set "reference" on the grader or on the request`,
  );
}

function grade(spec: GraderSpec, input: RuleInput, path: string, depth: number): RuleGrade {
  if (depth > MAX_GRADER_DEPTH) {
    throw new JudgeError("INVALID_REQUEST", `${path}: multi graders nest deeper than ${MAX_GRADER_DEPTH}`);
  }
  switch (spec.type) {
    case "string_check": {
      const { reference, source } = referenceFor(spec, input, path);
      const passed = stringCheck(spec.operation, input.response, reference);
      return {
        score: passed ? 1 : 0,
        detail: { type: spec.type, operation: spec.operation, passed, reference_from: source },
      };
    }
    case "text_similarity": {
      const { reference, source } = referenceFor(spec, input, path);
      const { similarity, extra } = textSimilarity(spec.metric, input.response, reference);
      const detail: Record<string, unknown> = {
        type: spec.type,
        metric: spec.metric,
        similarity,
        reference_from: source,
        ...extra,
      };
      if (spec.pass_threshold === undefined) return { score: similarity, detail };
      const passed = similarity >= spec.pass_threshold;
      return { score: passed ? 1 : 0, detail: { ...detail, pass_threshold: spec.pass_threshold, passed } };
    }
    case "multi": {
      const names = Object.keys(spec.graders);
      // The formula is checked before any sub-grader runs, so a typo fails fast and names itself.
      const formula = compileFormula(spec.calculate_output, names);
      const subScores: Record<string, number> = {};
      const subDetails: Record<string, Record<string, unknown>> = {};
      for (const name of names) {
        const sub = grade(spec.graders[name]!, input, `${path}.graders.${name}`, depth + 1);
        subScores[name] = sub.score;
        subDetails[name] = sub.detail;
      }
      const raw = formula.evaluate(subScores);
      const score = Math.min(1, Math.max(0, raw));
      return {
        score,
        detail: {
          type: spec.type,
          calculate_output: spec.calculate_output,
          raw_output: raw,
          clamped: score !== raw,
          sub_scores: subScores,
          sub_details: subDetails,
        },
      };
    }
  }
}

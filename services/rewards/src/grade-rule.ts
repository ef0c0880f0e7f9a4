// gradeRule: validates a rule-grader spec (grader-spec.ts) and scores one response with it — the one
// entry point of the rule language, called by the judge's rule mode and by the rollout's rule
// components alike, so a rule gives the same score in both. Every result is a score in [0, 1] with a
// detail record saying how it was reached; a bad spec, or a grader that needs a reference when none
// was given, throws a RuleGraderError — never a silent 0.
//
// References: a grader's own `reference` wins; otherwise the caller's `references` (the judge request's
// one reference, or the task's gold answers in the rollout), blank ones left out. With several, a
// grader scores the best over them (string_check `ne` passes only when the response equals none).
import { z } from "zod";
import { compileFormula } from "./formula.ts";
import { type GraderSpec, graderSpecSchema, MAX_GRADER_DEPTH } from "./grader-spec.ts";
import { exactMatch, f1Score } from "./qa-match.ts";
import { RuleGraderError } from "./rule-grader-error.ts";
import { stringCheck } from "./string-check.ts";
import { type Similarity, textSimilarity } from "./text-similarity.ts";

export interface RuleInput {
  response: string;
  /** The caller's references, used by graders without their own `reference`. */
  references: readonly string[];
}

export interface RuleGrade {
  /** In [0, 1]. */
  score: number;
  detail: Record<string, unknown>;
}

/** Parses a grader spec (its shape); throws INVALID_GRADER naming what is wrong. */
export function parseGraderSpec(grader: unknown): GraderSpec {
  const parsed = graderSpecSchema.safeParse(grader);
  if (!parsed.success) {
    throw new RuleGraderError("INVALID_GRADER", `invalid rule grader:\n${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

/**
 * Checks before any grading what grading would reject whatever the input: nesting deeper than
 * MAX_GRADER_DEPTH and formulas that do not compile. For callers that hold a spec for long (the
 * rollout's reward config); gradeRule makes the same checks as it goes.
 */
export function checkGraderSpec(spec: GraderSpec, path = "grader", depth = 1): void {
  checkDepth(path, depth);
  if (spec.type !== "multi") return;
  compileFormula(spec.calculate_output, Object.keys(spec.graders));
  for (const [name, sub] of Object.entries(spec.graders)) {
    checkGraderSpec(sub, `${path}.graders.${name}`, depth + 1);
  }
}

function checkDepth(path: string, depth: number): void {
  if (depth > MAX_GRADER_DEPTH) {
    throw new RuleGraderError(
      "INVALID_GRADER",
      `${path}: multi graders nest deeper than ${MAX_GRADER_DEPTH}`,
    );
  }
}

/** Whether some grader of the spec has no `reference` of its own, so grading needs the caller's. */
export function needsReference(spec: GraderSpec): boolean {
  if (spec.type === "multi") return Object.values(spec.graders).some(needsReference);
  return spec.reference === undefined || spec.reference.trim() === "";
}

/** Grades `input.response` with `grader` (a spec, validated here). */
export function gradeRule(grader: unknown, input: RuleInput): RuleGrade {
  return grade(parseGraderSpec(grader), input, "grader", 1);
}

function referencesFor(
  spec: { type: string; reference?: string | undefined },
  input: RuleInput,
  path: string,
): { references: string[]; source: "grader" | "input" } {
  const own = spec.reference;
  if (own !== undefined && own.trim() !== "") return { references: [own], source: "grader" };
  const given = input.references.filter((r) => r.trim() !== "");
  if (given.length > 0) return { references: given, source: "input" };
  throw new RuleGraderError(
    "NO_REFERENCE",
    `${path} (${spec.type}) needs a reference: set "reference" on the grader, or give one with the ` +
      "input (the judge request's reference, the task's gold answers)",
  );
}

function bestSimilarity(
  spec: { metric: Parameters<typeof textSimilarity>[0] },
  response: string,
  refs: string[],
) {
  let best: Similarity | undefined;
  for (const reference of refs) {
    const s = textSimilarity(spec.metric, response, reference);
    if (best === undefined || s.similarity > best.similarity) best = s;
  }
  return best!;
}

function grade(spec: GraderSpec, input: RuleInput, path: string, depth: number): RuleGrade {
  checkDepth(path, depth);
  switch (spec.type) {
    case "string_check": {
      const { references, source } = referencesFor(spec, input, path);
      const passed =
        spec.operation === "ne"
          ? references.every((r) => stringCheck("ne", input.response, r))
          : references.some((r) => stringCheck(spec.operation, input.response, r));
      return {
        score: passed ? 1 : 0,
        detail: { type: spec.type, operation: spec.operation, passed, reference_from: source },
      };
    }
    case "text_similarity": {
      const { references, source } = referencesFor(spec, input, path);
      const { similarity, extra } = bestSimilarity(spec, input.response, references);
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
    case "exact_match":
    case "f1": {
      const { references, source } = referencesFor(spec, input, path);
      const score =
        spec.type === "exact_match"
          ? exactMatch(input.response, references)
          : f1Score(input.response, references);
      return { score, detail: { type: spec.type, reference_from: source } };
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

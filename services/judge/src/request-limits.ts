// The operator's per-field input limits (`limits:` and `rule_graders.max_sub_graders` in the config),
// checked after the schema and before any work: a request over one is INVALID_REQUEST whose message and
// `limit` name the setting, its value and what the request had — never a silent truncation.
import type { LimitsConfig, RuleGradersConfig } from "./judge-config.ts";
import { JudgeError, type JudgeRequest } from "./judge-types.ts";
import { type GraderSpec, parseGraderSpec } from "./rule-graders/index.ts";

function over(field: string, setting: keyof LimitsConfig, max: number, actual: number): JudgeError {
  return new JudgeError(
    "INVALID_REQUEST",
    `${field} has ${actual} characters, more than limits.${setting} (${max})`,
    { limit: { setting: `limits.${setting}`, max, actual } },
  );
}

function checkChars(
  field: string,
  text: string | undefined,
  setting: keyof LimitsConfig,
  limits: LimitsConfig,
): void {
  const max = limits[setting];
  if (text !== undefined && text.length > max) throw over(field, setting, max, text.length);
}

/** Graders under `spec`, over every level of nesting (the root not counted). */
export function countSubGraders(spec: GraderSpec): number {
  if (spec.type !== "multi") return 0;
  let n = 0;
  for (const sub of Object.values(spec.graders)) n += 1 + countSubGraders(sub);
  return n;
}

/** Throws INVALID_REQUEST (with `limit`) for the first field over its limit. */
export function checkRequestLimits(
  request: JudgeRequest,
  limits: LimitsConfig,
  ruleGraders: RuleGradersConfig,
): void {
  checkChars("task", request.task, "max_task_chars", limits);
  checkChars("reference", request.reference, "max_reference_chars", limits);
  if (request.mode === "pairwise" || request.mode === "group") {
    request.responses.forEach((r, i) => {
      checkChars(`responses[${i}]`, r, "max_response_chars", limits);
    });
  } else {
    checkChars("response", request.response, "max_response_chars", limits);
  }
  if (request.mode === "group") checkChars("prefix", request.prefix, "max_prefix_chars", limits);
  if (request.mode === "rule") {
    const spec = parseGraderSpec(request.grader);
    const count = countSubGraders(spec);
    const max = ruleGraders.max_sub_graders;
    if (count > max)
      throw new JudgeError(
        "INVALID_REQUEST",
        `the grader has ${count} sub-graders, more than rule_graders.max_sub_graders (${max})`,
        { limit: { setting: "rule_graders.max_sub_graders", max, actual: count } },
      );
  } else {
    checkChars("rubric", request.rubric, "max_rubric_chars", limits);
  }
}

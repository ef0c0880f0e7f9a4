// `tool_verified`: scores the answer by calling a verify tool through the gateway
// (`sql__verify` for NL2SQL execution match, `code__run_tests` for programs, ...).
//
// Parameters:
//   tool          gateway tool name (`server__tool`)
//   arguments     argument template (argument-template.ts), e.g.
//                 { db: "{{extra_info.db_id}}", predicted_sql: "{{answer}}", gold_sql: "{{ground_truth.sql}}" }
//   score_path    where the score is in the tool's structured result (default `match`):
//                   "a.b"      → the value there: boolean → 1/0, number → itself;
//                   "x/y"      → the ratio of two numbers there, e.g. "passed/total" (y must be > 0)
//   deadline_ms   the call's deadline (default 30000)
//   on_tool_error what a result with `isError` (the tool said the call failed) scores:
//                   "zero" (default) → 0, a model outcome (its program/query was rejected);
//                   "fail" → a RewardConfigError, for tools whose isError means bad task data
//                   (sql verify reports a failing predicted query as `match: false`; its isError
//                   means the gold query or the database is broken).
// Outcomes: no answer (null or blank) → 0 without a call. A call failure is never a score: gateway
// codes TIMEOUT, UNAVAILABLE, CIRCUIT_OPEN, RATE_LIMITED, INTERNAL, CANCELLED, UPSTREAM_ERROR,
// OUTPUT_TOO_LARGE (and any code not known here) throw RewardInfraError; UNKNOWN_TOOL,
// INVALID_ARGUMENTS, ARGUMENTS_TOO_LARGE throw RewardConfigError. A structured result without a number
// at `score_path` throws RewardInfraError TOOL_BAD_RESULT.

import { CONFIG_CALL_CODES, serviceCallCode } from "@rlfactory/contracts";
import { z } from "zod";
import { checkTemplatePath, fillTemplate, templatePaths } from "./argument-template.ts";
import { oneLine, RewardConfigError, RewardInfraError } from "./errors.ts";
import {
  type ComponentScore,
  componentBaseShape,
  componentName,
  defineRewardComponent,
  type RewardComponent,
} from "./types.ts";

const KEY_PATH = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

export const toolVerifiedSchema = z
  .strictObject({
    type: z.literal("tool_verified"),
    ...componentBaseShape,
    tool: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()),
    score_path: z
      .string()
      .refine(
        (s) => s.split("/").length <= 2 && s.split("/").every((p) => KEY_PATH.test(p)),
        'a dot path ("match") or a ratio of two ("passed/total")',
      )
      .default("match"),
    deadline_ms: z.number().int().positive().default(30_000),
    on_tool_error: z.enum(["zero", "fail"]).default("zero"),
  })
  .superRefine((c, ctx) => {
    for (const path of templatePaths(c.arguments)) {
      const problem = checkTemplatePath(path);
      if (problem) ctx.addIssue({ code: "custom", path: ["arguments"], message: problem });
    }
  });
export type ToolVerifiedConfig = z.infer<typeof toolVerifiedSchema>;

export function createToolVerified(config: ToolVerifiedConfig): RewardComponent {
  const name = componentName(config);
  const [numerator, denominator] = config.score_path.split("/") as [string, string | undefined];

  const scoreOf = (structured: unknown, text: string): number => {
    const bad = (why: string) =>
      new RewardInfraError(
        name,
        "TOOL_BAD_RESULT",
        `${config.tool}: ${why} (score_path "${config.score_path}"; result: ${oneLine(text, 200)})`,
      );
    if (structured === null || typeof structured !== "object") throw bad("no structured result");
    const top = at(structured, numerator);
    if (denominator === undefined) {
      if (typeof top === "boolean") return top ? 1 : 0;
      if (typeof top === "number" && Number.isFinite(top)) return top;
      throw bad(`"${numerator}" is not a boolean or a number`);
    }
    const bottom = at(structured, denominator);
    if (typeof top !== "number" || typeof bottom !== "number" || !Number.isFinite(top) || !(bottom > 0)) {
      throw bad(`"${numerator}" and "${denominator}" must be numbers with "${denominator}" > 0`);
    }
    return top / bottom;
  };

  return {
    name,
    weight: config.weight,
    async score({ task, answer }, ctx): Promise<ComponentScore> {
      if (answer === null || answer.trim() === "") return { value: 0, detail: "no answer" };
      const args = fillTemplate(
        config.arguments,
        { answer, ground_truth: task.ground_truth, extra_info: task.extra_info, task },
        { component: name, taskId: task.id },
      );
      const result = await ctx.tools.call(config.tool, args, {
        deadlineMs: config.deadline_ms,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      if (result.errorCode !== "OK") {
        const message = `${config.tool}: ${result.errorCode}: ${oneLine(result.text)}`;
        if (CONFIG_CALL_CODES.has(result.errorCode))
          throw new RewardConfigError(name, serviceCallCode(result.errorCode), message);
        throw new RewardInfraError(name, serviceCallCode(result.errorCode), message);
      }
      if (result.isError) {
        if (config.on_tool_error === "fail") {
          throw new RewardConfigError(name, "TOOL_ERROR", `${config.tool} failed: ${oneLine(result.text)}`);
        }
        return { value: 0, detail: `tool error: ${oneLine(result.text)}` };
      }
      const value = scoreOf(result.structured, result.text);
      return value === 1 ? { value } : { value, detail: oneLine(result.text) };
    },
  };
}

function at(node: unknown, path: string): unknown {
  for (const key of path.split(".")) {
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A number at `score_path` is taken as is (any finite value); a boolean or a ratio is in [0, 1]. */
export const toolVerifiedComponent = defineRewardComponent({
  schema: toolVerifiedSchema,
  range: [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY],
  create: createToolVerified,
});

// The operator's limits through the judge service: each field over its limit is INVALID_REQUEST naming
// the setting (before any backend call), a multi grader's sub-graders are counted over every level, and
// a rule grading past its deadline — the config's, or the request's shorter one — is TIMEOUT while the
// pool goes on serving.
import { afterAll, describe, expect, it } from "vitest";
import { parseJudgeConfig } from "./judge-config.ts";
import { createJudgeService } from "./judge-service.ts";
import type { JudgeOutcome } from "./judge-types.ts";
import { countSubGraders } from "./request-limits.ts";
import { parseGraderSpec } from "./rule-graders/index.ts";

const limits = {
  max_task_chars: 10,
  max_response_chars: 20,
  max_reference_chars: 30,
  max_prefix_chars: 40,
  max_rubric_chars: 50,
};

function errorOf(outcome: JudgeOutcome) {
  if (outcome.ok) throw new Error(`expected a failure, got ${outcome.result.score}`);
  return outcome.error;
}

describe("per-field limits", () => {
  // No backend: a request within its limits would answer BACKEND_UNAVAILABLE, so INVALID_REQUEST proves
  // the limit is checked first.
  const service = createJudgeService(parseJudgeConfig({ limits }));
  afterAll(() => service.close());
  const x = (n: number) => "x".repeat(n);

  it.each([
    [{ mode: "pointwise", task: x(11), response: "r" }, "task", "max_task_chars", 10, 11],
    [{ mode: "pointwise", task: "t", response: x(21) }, "response", "max_response_chars", 20, 21],
    [
      { mode: "reference", task: "t", response: "r", reference: x(31) },
      "reference",
      "max_reference_chars",
      30,
      31,
    ],
    [{ mode: "pairwise", task: "t", responses: ["a", x(21)] }, "responses[1]", "max_response_chars", 20, 21],
    [{ mode: "group", task: "t", responses: ["a"], prefix: x(41) }, "prefix", "max_prefix_chars", 40, 41],
    [{ mode: "pointwise", task: "t", response: "r", rubric: x(51) }, "rubric", "max_rubric_chars", 50, 51],
    [
      { mode: "rule", response: x(21), grader: { type: "string_check", operation: "eq" } },
      "response",
      "max_response_chars",
      20,
      21,
    ],
  ])("%j → INVALID_REQUEST naming limits.%s", async (request, field, setting, max, actual) => {
    const error = errorOf(await service.judge(request));
    expect(error).toEqual({
      code: "INVALID_REQUEST",
      message: `${field} has ${actual} characters, more than limits.${setting} (${max})`,
      limit: { setting: `limits.${setting}`, max, actual },
    });
  });

  it("at the limit is fine", async () => {
    expect(errorOf(await service.judge({ mode: "pointwise", task: x(10), response: x(20) })).code).toBe(
      "BACKEND_UNAVAILABLE",
    );
  });
});

describe("sub-graders", () => {
  const leaf = { type: "string_check", operation: "eq" };
  const nested = {
    type: "multi",
    calculate_output: "a + b",
    graders: { a: leaf, b: { type: "multi", calculate_output: "c * d", graders: { c: leaf, d: leaf } } },
  };

  it("are counted over every level of nesting", () => {
    expect(countSubGraders(parseGraderSpec(leaf))).toBe(0);
    expect(countSubGraders(parseGraderSpec(nested))).toBe(4);
  });

  it("over rule_graders.max_sub_graders is INVALID_REQUEST; at it the grader runs", async () => {
    const service = createJudgeService(parseJudgeConfig({ rule_graders: { max_sub_graders: 3 } }));
    const atLimit = createJudgeService(parseJudgeConfig({ rule_graders: { max_sub_graders: 4 } }));
    try {
      const request = { mode: "rule", response: "a", reference: "a", grader: nested };
      expect(errorOf(await service.judge(request))).toMatchObject({
        code: "INVALID_REQUEST",
        limit: { setting: "rule_graders.max_sub_graders", max: 3, actual: 4 },
      });
      expect(await atLimit.judge(request)).toMatchObject({ ok: true, result: { score: 1 } });
    } finally {
      await service.close();
      await atLimit.close();
    }
  });
});

describe("the rule-grader deadline", () => {
  const long = (seed: string) => Array.from({ length: 9_000 }, (_, i) => `${seed}${i % 97}`).join(" ");
  const heavy = {
    mode: "rule",
    response: long("a"),
    reference: long("b"),
    grader: { type: "text_similarity", metric: "rouge_l" },
  } as const;
  const light = {
    mode: "rule",
    response: "Paris",
    reference: "paris",
    grader: { type: "string_check", operation: "ieq" },
  } as const;

  it("a request's shorter deadline_ms stops the grading as TIMEOUT naming the setting; the pool serves on", async () => {
    const service = createJudgeService(
      parseJudgeConfig({ rule_graders: { workers: 1, deadline_ms: 600_000 } }),
    );
    try {
      const error = errorOf(await service.judge({ ...heavy, deadline_ms: 50 }));
      expect(error).toMatchObject({
        code: "TIMEOUT",
        message: expect.stringContaining("its worker was stopped"),
        limit: { setting: "rule_graders.deadline_ms", max: 600_000 },
      });
      // the one worker was stopped and replaced: the next grading is answered
      expect(await service.judge(light)).toMatchObject({ ok: true, result: { score: 1 } });
    } finally {
      await service.close();
    }
  });

  it("a caller that goes away cancels its grading (CANCELLED), queued or running", async () => {
    const service = createJudgeService(parseJudgeConfig({ rule_graders: { workers: 1 } }));
    try {
      const running = new AbortController();
      const queued = new AbortController();
      const first = service.judge(heavy, { signal: running.signal });
      const second = service.judge(heavy, { signal: queued.signal });
      queued.abort();
      running.abort();
      expect(errorOf(await first).code).toBe("CANCELLED");
      expect(errorOf(await second).code).toBe("CANCELLED");
      expect(await service.judge(light)).toMatchObject({ ok: true, result: { score: 1 } });
    } finally {
      await service.close();
    }
  });
});

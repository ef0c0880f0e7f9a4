// docs/tools.md states the tool servers' limits and statuses in prose; each number and name is checked
// against the constant the server uses, so the doc cannot drift.
import { readDoc } from "@rlfactory/test-support/markdown";
import { describe, expect, it } from "vitest";
import { EVALUATOR_DEFAULTS, START_ATTEMPTS } from "./calculator/isolated-evaluator.ts";
import {
  BIGNUMBER_PRECISION,
  MAX_EXPRESSION_LENGTH,
  MAX_RESULT_ELEMENTS,
} from "./calculator/math-evaluator.ts";
import { RUN_STATUSES } from "./code/run-result.ts";
import { DEFAULT_SETTINGS as CODE_DEFAULTS } from "./code/sandbox-limits.ts";
import { LIMITS as SQL_LIMITS } from "./sql/sql-server.ts";

const doc = readDoc("docs/tools.md");
/** The doc's section `## name`, with its line breaks as spaces. */
const section = (name: string) =>
  (doc.split(/^## /m).find((s) => s.startsWith(`${name}\n`)) ?? "").replaceAll("\n", " ");
/** The number in `text` matched by the first group of `pattern` ("1,000" → 1000). */
const stated = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1]?.replaceAll(",", ""));

describe("docs/tools.md", () => {
  it("gives the calculator's limits", () => {
    const calc = section("calculator");
    expect(stated(calc, /one expression of at most ([\d,]+) characters/)).toBe(MAX_EXPRESSION_LENGTH);
    expect(stated(calc, /results of at most ([\d,]+) elements/)).toBe(MAX_RESULT_ELEMENTS);
    expect(stated(calc, /a (\d+) MiB heap/)).toBe(EVALUATOR_DEFAULTS.maxHeapMb);
    expect(stated(calc, /`--timeout-ms MS`, default (\d+) s/) * 1000).toBe(EVALUATOR_DEFAULTS.timeoutMs);
    expect(stated(calc, /time limit of (\d+) ms/)).toBe(EVALUATOR_DEFAULTS.timeoutMs);
    expect(stated(calc, /a fresh worker \((\d+) tries in all\)/)).toBe(START_ATTEMPTS);
    expect(stated(calc, /with (\d+) significant digits/)).toBe(BIGNUMBER_PRECISION);
  });

  it("names every status a code run can end with", () => {
    const statuses = /Statuses (.*?)\. /.exec(section("code"))?.[1] ?? "";
    expect([...statuses.matchAll(/`([a-z_]+)`/g)].map((m) => m[1])).toEqual([...RUN_STATUSES]);
  });

  it("gives the code sandbox's default memory limit and the operator's default maxima", () => {
    const code = section("code");
    expect(stated(code, /`memory_limit_MB`\s+\(default (\d+)\)/)).toBe(CODE_DEFAULTS.defaultMemoryMb);
    expect(stated(code, /`--max-memory` \(default\s+([\d,]+) MiB\)/)).toBe(CODE_DEFAULTS.maxMemoryMb);
    expect(stated(code, /`--max-run-timeout` \(default (\d+) s\)/)).toBe(CODE_DEFAULTS.maxRunTimeoutSec);
  });

  it("gives the sql server's default time limit", () => {
    expect(stated(section("sql"), /time limit \((\d+) s default\)/) * 1000).toBe(SQL_LIMITS.timeoutMs);
  });

  it("gives the sql server's default number of query processes", () => {
    expect(stated(section("sql"), /\(`--processes`, default (\d+)\)/)).toBe(SQL_LIMITS.processes);
  });
});

// Filling tool-argument templates from a task: whole-value and inline placeholders, and the errors.

import { qaTask } from "@rlfactory/test-support/reward-fixtures";
import { describe, expect, it } from "vitest";
import { checkTemplatePath, fillTemplate, templatePaths } from "./argument-template.ts";
import { isRewardConfigError } from "./errors.ts";

const task = qaTask(
  { sql: "SELECT 1", tests: [{ stdin: "1", expected_stdout: "2" }] },
  { db_id: "pets_1", n: 3 },
  "task-7",
);
const scope = { answer: "SELECT 2", ground_truth: task.ground_truth, extra_info: task.extra_info, task };
const where = { component: "tool_verified", taskId: task.id };

describe("argument templates", () => {
  it("puts whole values in place (any JSON type) and interpolates inside strings", () => {
    const filled = fillTemplate(
      {
        db: "{{extra_info.db_id}}",
        predicted_sql: "{{ answer }}",
        tests: "{{ground_truth.tests}}",
        first_stdin: "{{ground_truth.tests.0.stdin}}",
        label: "task {{task.id}} has {{extra_info.n}} items",
        nested: { list: ["{{task.data_source}}", 5, null], flag: true },
      },
      scope,
      where,
    );
    expect(filled).toEqual({
      db: "pets_1",
      predicted_sql: "SELECT 2",
      tests: [{ stdin: "1", expected_stdout: "2" }],
      first_stdin: "1",
      label: "task task-7 has 3 items",
      nested: { list: ["test", 5, null], flag: true },
    });
  });

  it("a path the task lacks is a config error naming the path and the task", () => {
    for (const path of [
      "extra_info.db",
      "ground_truth.tests.5",
      "task.constructor",
      "ground_truth.sql.length",
    ]) {
      let caught: unknown;
      try {
        fillTemplate({ x: `{{${path}}}` }, scope, where);
      } catch (e) {
        caught = e;
      }
      expect(isRewardConfigError(caught)).toBe(true);
      expect(caught).toMatchObject({ code: "TEMPLATE_PATH_MISSING", component: "tool_verified" });
      expect((caught as Error).message).toBe(`argument template: task task-7 has no value at "${path}"`);
    }
  });

  it("refuses an object interpolated inside a longer string", () => {
    expect(() => fillTemplate({ x: "tests: {{ground_truth.tests}}" }, scope, where)).toThrow(
      /"\{\{ground_truth.tests\}\}" inside a longer string must be a string, number or boolean/,
    );
  });

  it("lists and checks the paths of a template at config time", () => {
    expect(templatePaths({ a: "{{answer}} and {{task.id}}", b: ["{{extra_info.x}}"], c: 1 })).toEqual([
      "answer",
      "task.id",
      "extra_info.x",
    ]);
    expect(checkTemplatePath("extra_info.db_id")).toBeUndefined();
    expect(checkTemplatePath("trajectory.turns")).toBe(
      '"{{trajectory.turns}}" must start with one of answer, ground_truth, extra_info, task',
    );
    expect(checkTemplatePath("answer..x")).toBe('"{{answer..x}}" is not a dot-separated path');
  });
});

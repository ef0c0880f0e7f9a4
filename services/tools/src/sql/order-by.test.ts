import { describe, expect, it } from "vitest";
import { hasTopLevelOrderBy } from "./order-by.ts";

describe("hasTopLevelOrderBy", () => {
  it("finds an ORDER BY of the final result, in any case and spacing", () => {
    expect(hasTopLevelOrderBy("SELECT name FROM singer ORDER BY age")).toBe(true);
    expect(hasTopLevelOrderBy("select name from singer order\n  by age desc limit 1")).toBe(true);
    expect(hasTopLevelOrderBy("SELECT a FROM x UNION SELECT b FROM y ORDER BY 1")).toBe(true);
    expect(hasTopLevelOrderBy("WITH t AS (SELECT 1 AS a) SELECT a FROM t ORDER BY a")).toBe(true);
  });

  it("ignores ORDER BY in subqueries, windows, strings, identifiers and comments", () => {
    expect(hasTopLevelOrderBy("SELECT name FROM singer")).toBe(false);
    expect(hasTopLevelOrderBy("SELECT * FROM (SELECT name FROM singer ORDER BY age LIMIT 3)")).toBe(false);
    expect(hasTopLevelOrderBy("SELECT name, rank() OVER (ORDER BY age) FROM singer")).toBe(false);
    expect(hasTopLevelOrderBy("SELECT name FROM singer WHERE note = 'order by'")).toBe(false);
    expect(hasTopLevelOrderBy("SELECT name FROM singer WHERE note = 'it''s (' ORDER BY age")).toBe(true);
    expect(hasTopLevelOrderBy('SELECT "order" FROM t WHERE "by" = 1')).toBe(false);
    expect(hasTopLevelOrderBy("SELECT name FROM singer -- order by age\n")).toBe(false);
    expect(hasTopLevelOrderBy("SELECT name FROM singer /* order by age */")).toBe(false);
    expect(hasTopLevelOrderBy("SELECT name AS border FROM singer")).toBe(false);
  });
});

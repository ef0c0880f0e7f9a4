// SQL that keeps the sql tool server busy, for its isolation tests and its chaos scenario.

/** A query that runs until something stops it (a recursive count to 10^12). */
export const RUNAWAY_SQL =
  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1e12) SELECT count(*) FROM c";

/**
 * A `verify` whose comparison is the slowest kind: `rows` × `columns` (default 6), every column
 * holding the same values (0 … rows-1, rotated), and a predicted result that differs from the gold
 * one only by two swapped values, so that every column order (720 for 6 columns, 5,040 for 7) is
 * built, sorted and compared. 20,000 rows × 6 columns take about 10 s on one loaded core.
 */
export function heavyVerify(rows: number, columns = 6): { gold_sql: string; predicted_sql: string } {
  const counter = `WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x < ${rows - 1})`;
  const column = (shift: number, x = "x") => `(${x} + ${shift}) % ${rows}`;
  const shifts = Array.from({ length: columns }, (_, i) => i);
  const last = columns - 1;
  const swapped = `CASE x WHEN 0 THEN ${column(last, "1")} WHEN 1 THEN ${column(last, "0")} ELSE ${column(last)} END`;
  const gold = shifts.map((i) => column(i)).join(", ");
  const predicted = shifts
    .slice(0, last)
    .map((i) => column(i))
    .concat(swapped)
    .join(", ");
  return {
    gold_sql: `${counter} SELECT ${gold} FROM c`,
    predicted_sql: `${counter} SELECT ${predicted} FROM c`,
  };
}

// SQL that keeps the sql tool server busy, for its isolation tests and its chaos scenario.

/** A query that runs until something stops it (a recursive count to 10^12). */
export const RUNAWAY_SQL =
  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1e12) SELECT count(*) FROM c";

/**
 * A `verify` whose comparison is the slowest kind: `rows` × 6 columns, every column holding the same
 * values (0 … rows-1, rotated), and a predicted result that differs from the gold one only by two
 * swapped values, so that every one of the 720 column orders is built, sorted and compared.
 */
export function heavyVerify(rows: number): { gold_sql: string; predicted_sql: string } {
  const counter = `WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x < ${rows - 1})`;
  const column = (shift: number) => `(x + ${shift}) % ${rows}`;
  const gold = [0, 1, 2, 3, 4, 5].map(column).join(", ");
  const swapped = `CASE x WHEN 0 THEN ${column(5).replace("x", "1")} WHEN 1 THEN ${column(5).replace("x", "0")} ELSE ${column(5)} END`;
  const predicted = [0, 1, 2, 3, 4].map(column).concat(swapped).join(", ");
  return {
    gold_sql: `${counter} SELECT ${gold} FROM c`,
    predicted_sql: `${counter} SELECT ${predicted} FROM c`,
  };
}

// Execution match of two query results (rows of cell keys, see cell-key.ts), following Spider's
// `result_eq` (test-suite evaluation) as used by NL2SQL RL work (Spider EX, SQL-R1):
//  - `bag` (default): rows compared as multisets, order ignored, duplicates counted;
//  - `ordered`: rows compared as sequences (for a gold query with a top-level ORDER BY);
//  - `set`: duplicate rows ignored, then as `bag`.
// Column names never matter and columns may come in any order: the results match when some
// permutation of the predicted columns makes the rows equal. Only permutations that map each
// column onto one with the same multiset of values are tried, identical columns are tried once,
// and the search gives up (no match) after MAX_PERMUTATIONS candidates. Two empty results match
// whatever their columns, as in Spider.

export type CompareMode = "set" | "bag" | "ordered";

export const MAX_PERMUTATIONS = 10_000;

type Rows = readonly (readonly string[])[];

function distinct(rows: Rows): Rows {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const key = JSON.stringify(row);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function columnOf(rows: Rows, index: number): string[] {
  return rows.map((row) => row[index]!);
}

/** The multiset of a column's values, as one string. */
function multisetKey(values: readonly string[]): string {
  return JSON.stringify([...values].sort());
}

/** The rows as comparable strings: in order for `ordered`, sorted otherwise. */
function rowsKey(rows: Rows, ordered: boolean): string {
  const keys = rows.map((row) => JSON.stringify(row));
  if (!ordered) keys.sort();
  return JSON.stringify(keys);
}

export function resultsMatch(gold: Rows, predicted: Rows, mode: CompareMode): boolean {
  const left = mode === "set" ? distinct(gold) : gold;
  const right = mode === "set" ? distinct(predicted) : predicted;
  if (left.length === 0 && right.length === 0) return true;
  if (left.length !== right.length) return false;
  const width = left[0]!.length;
  if (right[0]!.length !== width) return false;

  const ordered = mode === "ordered";
  const target = rowsKey(left, ordered);
  const goldColumns = Array.from({ length: width }, (_, i) => multisetKey(columnOf(left, i)));
  const predictedVectors = Array.from({ length: width }, (_, j) => JSON.stringify(columnOf(right, j)));
  const predictedColumns = Array.from({ length: width }, (_, j) => multisetKey(columnOf(right, j)));

  // perm[i] = the predicted column placed at gold position i.
  const perm: number[] = [];
  const used = new Set<number>();
  let tried = 0;
  const search = (i: number): boolean => {
    if (tried >= MAX_PERMUTATIONS) return false;
    if (i === width) {
      tried++;
      return (
        rowsKey(
          right.map((row) => perm.map((j) => row[j]!)),
          ordered,
        ) === target
      );
    }
    const triedVectors = new Set<string>();
    for (let j = 0; j < width; j++) {
      if (used.has(j) || predictedColumns[j] !== goldColumns[i]) continue;
      // Placing an identical column here gives the same table: try each distinct column once.
      if (triedVectors.has(predictedVectors[j]!)) continue;
      triedVectors.add(predictedVectors[j]!);
      perm.push(j);
      used.add(j);
      const found = search(i + 1);
      perm.pop();
      used.delete(j);
      if (found) return true;
    }
    return false;
  };
  return search(0);
}

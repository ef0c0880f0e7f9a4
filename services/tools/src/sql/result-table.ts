// The text a model sees for a query result: a compact pipe-separated table with a header line and a
// row count (and a note when rows were left out). NULL shows as NULL; `|` and line breaks in text
// are escaped so that every row stays on one line.
import type { Cell } from "./query-messages.ts";

function showCell(cell: Cell): string {
  if (cell === null) return "NULL";
  if (typeof cell === "number") return String(cell);
  return cell.replaceAll("\\", "\\\\").replaceAll("|", "\\|").replace(/\r?\n/g, "\\n");
}

export function renderTable(
  columns: readonly string[],
  rows: readonly (readonly Cell[])[],
  truncated: boolean,
): string {
  const lines = [
    columns.map((c) => showCell(c)).join(" | "),
    ...rows.map((row) => row.map(showCell).join(" | ")),
  ];
  const count = rows.length === 1 ? "1 row" : `${rows.length} rows`;
  lines.push(
    truncated ? `(${count} shown; the result has more: add LIMIT or narrow the query)` : `(${count})`,
  );
  return lines.join("\n");
}

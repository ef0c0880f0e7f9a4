// The comparison key of a result cell, for execution match: values are equal exactly when their
// keys are. Numbers compare by value whatever their SQLite storage class (1 == 1.0), non-integers
// to 12 significant digits (so AVG(x) and SUM(x) * 1.0 / COUNT(x) agree despite float rounding);
// text compares exactly and never equals a number ('1' != 1); NULL equals NULL; blobs by bytes.

const SIGNIFICANT_DIGITS = 12;

function numberKey(value: number): string {
  if (Number.isInteger(value)) return `n:${value === 0 ? 0 : value}`;
  if (!Number.isFinite(value)) return `n:${value}`;
  return `n:${Number(value.toPrecision(SIGNIFICANT_DIGITS))}`;
}

export function cellKey(value: unknown): string {
  if (value === null || value === undefined) return "z";
  if (typeof value === "number") return numberKey(value);
  if (typeof value === "bigint") {
    const asNumber = Number(value);
    return Number.isSafeInteger(asNumber) ? numberKey(asNumber) : `n:${value}`;
  }
  if (typeof value === "string") return `s:${value}`;
  if (value instanceof Uint8Array) return `b:${Buffer.from(value).toString("hex")}`;
  return `s:${String(value)}`;
}

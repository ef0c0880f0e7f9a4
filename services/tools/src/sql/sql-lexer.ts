// The one place that knows SQLite's lexical skipping rules: `-- line` and `/* block */` comments,
// 'string' literals, "double-quoted" and `backtick` identifiers (a doubled quote is an escaped
// quote, not the end) and [bracketed] identifiers. Everything else is code.

export type SqlSegment =
  | { kind: "code"; text: string }
  | { kind: "comment"; text: string }
  /** `text` includes the quotes; `quote` is the opening character. */
  | { kind: "quoted"; quote: "'" | '"' | "`" | "["; text: string };

/** Splits `sql` into consecutive segments whose texts concatenate back to `sql`. */
export function scanSql(sql: string): SqlSegment[] {
  const segments: SqlSegment[] = [];
  let code = "";
  const flushCode = () => {
    if (code) segments.push({ kind: "code", text: code });
    code = "";
  };
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    let end: number;
    if (ch === "-" && sql[i + 1] === "-") {
      const newline = sql.indexOf("\n", i);
      end = newline === -1 ? sql.length : newline + 1;
      flushCode();
      segments.push({ kind: "comment", text: sql.slice(i, end) });
    } else if (ch === "/" && sql[i + 1] === "*") {
      const close = sql.indexOf("*/", i + 2);
      end = close === -1 ? sql.length : close + 2;
      flushCode();
      segments.push({ kind: "comment", text: sql.slice(i, end) });
    } else if (ch === "'" || ch === '"' || ch === "`") {
      end = i + 1;
      while (end < sql.length) {
        if (sql[end] !== ch) end++;
        else if (sql[end + 1] === ch) end += 2;
        else break;
      }
      end = Math.min(end + 1, sql.length);
      flushCode();
      segments.push({ kind: "quoted", quote: ch, text: sql.slice(i, end) });
    } else if (ch === "[") {
      const close = sql.indexOf("]", i + 1);
      end = close === -1 ? sql.length : close + 1;
      flushCode();
      segments.push({ kind: "quoted", quote: "[", text: sql.slice(i, end) });
    } else {
      code += ch;
      end = i + 1;
    }
    i = end;
  }
  flushCode();
  return segments;
}

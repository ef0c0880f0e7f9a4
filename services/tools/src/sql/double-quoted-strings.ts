// SQLite's "double-quoted string literal" compatibility: a "double-quoted" token that names no
// column is taken as a string. Most SQLite builds allow it, and so do Python's sqlite3 and with it
// the NL2SQL datasets (213 of Spider's 1,034 dev gold queries write `name = "Bob"`), but
// better-sqlite3 is built with SQLITE_DQS=0. When SQLite reports such a token, we rewrite it as a
// 'single-quoted' literal and prepare again (see read-only-statement.ts), which gives the
// statement the meaning it has elsewhere.

const UNRESOLVED = /^no such column: "(.*)" - should this be a string literal in single-quotes\?$/s;

/** The token SQLite could not resolve as a column, from its error message, or undefined. */
export function unresolvedQuotedName(message: string): string | undefined {
  return UNRESOLVED.exec(message)?.[1];
}

/**
 * `sql` with each "double-quoted" token spelling `name` turned into a 'single-quoted' literal
 * (outside string literals and comments), or undefined if there is none.
 */
export function quoteAsString(sql: string, name: string): string | undefined {
  let out = "";
  let changed = false;
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    let end: number;
    if (ch === "-" && sql[i + 1] === "-") {
      const newline = sql.indexOf("\n", i);
      end = newline === -1 ? sql.length : newline + 1;
    } else if (ch === "/" && sql[i + 1] === "*") {
      const close = sql.indexOf("*/", i + 2);
      end = close === -1 ? sql.length : close + 2;
    } else if (ch === "'" || ch === '"' || ch === "`") {
      end = i + 1;
      while (end < sql.length) {
        if (sql[end] !== ch) end++;
        else if (sql[end + 1] === ch) end += 2;
        else break;
      }
      end = Math.min(end + 1, sql.length);
      if (ch === '"') {
        const value = sql.slice(i + 1, end - 1).replaceAll('""', '"');
        if (value === name || sql.slice(i + 1, end - 1) === name) {
          out += `'${value.replaceAll("'", "''")}'`;
          changed = true;
          i = end;
          continue;
        }
      }
    } else if (ch === "[") {
      const close = sql.indexOf("]", i + 1);
      end = close === -1 ? sql.length : close + 1;
    } else {
      end = i + 1;
    }
    out += sql.slice(i, end);
    i = end;
  }
  return changed ? out : undefined;
}

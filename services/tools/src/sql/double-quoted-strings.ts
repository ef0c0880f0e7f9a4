// SQLite's "double-quoted string literal" compatibility: a "double-quoted" token that names no
// column is taken as a string. Most SQLite builds allow it, and so do Python's sqlite3 and with it
// the NL2SQL datasets (213 of Spider's 1,034 dev gold queries write `name = "Bob"`), but
// better-sqlite3 is built with SQLITE_DQS=0. When SQLite reports such a token, we rewrite it as a
// 'single-quoted' literal and prepare again (see read-only-statement.ts), which gives the
// statement the meaning it has elsewhere.

import { scanSql } from "./sql-lexer.ts";

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
  let changed = false;
  const out = scanSql(sql).map((segment) => {
    if (segment.kind !== "quoted" || segment.quote !== '"') return segment.text;
    const inner = segment.text.slice(1, -1);
    const value = inner.replaceAll('""', '"');
    if (value !== name && inner !== name) return segment.text;
    changed = true;
    return `'${value.replaceAll("'", "''")}'`;
  });
  return changed ? out.join("") : undefined;
}

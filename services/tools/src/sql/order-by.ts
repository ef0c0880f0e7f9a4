// Whether a query orders its final result: an ORDER BY outside any parentheses (so not one inside a
// subquery, a window or an aggregate's argument list), ignoring string literals, quoted
// identifiers and comments. Decides the default comparison of `verify`, as in Spider's evaluation.
import { scanSql } from "./sql-lexer.ts";

/** Words of the query with their parenthesis depth; a quoted string or identifier is an empty word. */
function tokensOf(sql: string): { word: string; depth: number }[] {
  const tokens: { word: string; depth: number }[] = [];
  let depth = 0;
  for (const segment of scanSql(sql)) {
    if (segment.kind === "comment") continue;
    if (segment.kind === "quoted") {
      tokens.push({ word: "", depth });
      continue;
    }
    const code = segment.text;
    let i = 0;
    while (i < code.length) {
      const ch = code[i]!;
      if (ch === "(") {
        depth++;
        i++;
      } else if (ch === ")") {
        depth = Math.max(0, depth - 1);
        i++;
      } else if (/[A-Za-z_]/.test(ch)) {
        let j = i + 1;
        while (j < code.length && /[A-Za-z0-9_$]/.test(code[j]!)) j++;
        tokens.push({ word: code.slice(i, j).toLowerCase(), depth });
        i = j;
      } else {
        if (!/\s/.test(ch)) tokens.push({ word: "", depth });
        i++;
      }
    }
  }
  return tokens;
}

export function hasTopLevelOrderBy(sql: string): boolean {
  const tokens = tokensOf(sql);
  return tokens.some(
    (token, k) => token.depth === 0 && token.word === "order" && tokens[k + 1]?.word === "by",
  );
}

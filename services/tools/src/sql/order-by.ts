// Whether a query orders its final result: an ORDER BY outside any parentheses (so not one inside a
// subquery, a window or an aggregate's argument list), ignoring string literals, quoted
// identifiers and comments. Decides the default comparison of `verify`, as in Spider's evaluation.

/** Strips comments and the contents of quoted strings and identifiers, keeping their positions' meaning. */
function tokensOf(sql: string): { word: string; depth: number }[] {
  const tokens: { word: string; depth: number }[] = [];
  let depth = 0;
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (ch === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      i = end === -1 ? sql.length : end + 1;
    } else if (ch === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      i = end === -1 ? sql.length : end + 2;
    } else if (ch === "'" || ch === '"' || ch === "`" || ch === "[") {
      const close = ch === "[" ? "]" : ch;
      let j = i + 1;
      while (j < sql.length) {
        if (sql[j] === close) {
          // A doubled quote inside a string or identifier is an escaped quote, not the end.
          if (close !== "]" && sql[j + 1] === close) j += 2;
          else break;
        } else j++;
      }
      i = j + 1;
      tokens.push({ word: "", depth });
    } else if (ch === "(") {
      depth++;
      i++;
    } else if (ch === ")") {
      depth = Math.max(0, depth - 1);
      i++;
    } else if (/[A-Za-z_]/.test(ch)) {
      let j = i + 1;
      while (j < sql.length && /[A-Za-z0-9_$]/.test(sql[j]!)) j++;
      tokens.push({ word: sql.slice(i, j).toLowerCase(), depth });
      i = j;
    } else {
      if (!/\s/.test(ch)) tokens.push({ word: "", depth });
      i++;
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

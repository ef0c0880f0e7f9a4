// Preparing a model's SQL so that only a single read-only query can run. Three independent
// guards: the statement must start with SELECT, WITH or VALUES; SQLite must report it read-only
// and returning rows (sqlite3_stmt_readonly, and a result column count > 0: this rules out
// INSERT/UPDATE/DELETE/DDL, WITH ... DELETE, ATTACH/DETACH, BEGIN/COMMIT and PRAGMA assignments);
// and better-sqlite3 refuses a string holding more than one statement. The connection itself is
// opened read-only with `PRAGMA query_only = ON` besides (see sqlite-connection.ts).
// Table-valued pragma functions (`pragma_database_list` shows the database's absolute host path;
// the others describe the server, not the data) are refused by name: any `pragma_` in the text,
// in whatever quoting or case, since SQLite takes a quoted or even a 'string' token as a table name.
// "Double-quoted" strings are accepted as SQLite usually does (see double-quoted-strings.ts).
import type { Database, Statement } from "better-sqlite3";
import { quoteAsString, unresolvedQuotedName } from "./double-quoted-strings.ts";

export const REFUSED = "only read-only SELECT statements are allowed";
export const REFUSED_MULTIPLE = `${REFUSED} (one statement per call)`;
export const REFUSED_PRAGMA = `${REFUSED} (no pragma_ functions; describe_table shows a table's columns)`;
const PRAGMA_FUNCTION = /pragma_/i;

/** Thrown when a statement is refused; `message` is shown to the model. */
export class RefusedStatement extends Error {
  override readonly name = "RefusedStatement";
}

const LEADING_COMMENTS = /^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*/;
const QUERY_KEYWORD = /^(?:select|with|values)\b/i;
/** Rewrites of "double-quoted" strings tried for one statement. */
const MAX_REWRITES = 50;

/** Prepares `sql`, taking "double-quoted" tokens that name no column as strings. */
function prepareWithQuotedStrings(db: Database, sql: string): Statement<unknown[], unknown> {
  let text = sql;
  for (let rewrites = 0; ; rewrites++) {
    try {
      return db.prepare(text);
    } catch (error) {
      const name = error instanceof Error ? unresolvedQuotedName(error.message) : undefined;
      const rewritten =
        name === undefined || rewrites === MAX_REWRITES ? undefined : quoteAsString(text, name);
      if (rewritten === undefined) throw error;
      text = rewritten;
    }
  }
}

/** Prepares `sql` as a single read-only query; throws RefusedStatement, or SQLite's error. */
export function prepareReadOnly(db: Database, sql: string): Statement<unknown[], unknown> {
  const body = sql.replace(LEADING_COMMENTS, "");
  if (!QUERY_KEYWORD.test(body)) throw new RefusedStatement(REFUSED);
  if (PRAGMA_FUNCTION.test(sql)) throw new RefusedStatement(REFUSED_PRAGMA);
  let statement: Statement<unknown[], unknown>;
  try {
    statement = prepareWithQuotedStrings(db, sql);
  } catch (error) {
    if (error instanceof RangeError && /more than one statement/.test(error.message)) {
      throw new RefusedStatement(REFUSED_MULTIPLE);
    }
    throw error;
  }
  if (!statement.readonly || !statement.reader) throw new RefusedStatement(REFUSED);
  return statement;
}

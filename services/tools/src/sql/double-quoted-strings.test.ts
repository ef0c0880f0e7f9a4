import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { quoteAsString, unresolvedQuotedName } from "./double-quoted-strings.ts";

describe("double-quoted strings", () => {
  it("reads the unresolved token from SQLite's own error", () => {
    const db = new Database(":memory:");
    db.exec("CREATE TABLE t (a)");
    let message = "";
    try {
      db.prepare('SELECT a FROM t WHERE a = "AKO"');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(unresolvedQuotedName(message)).toBe("AKO");
    expect(unresolvedQuotedName("no such column: nme")).toBeUndefined();
    db.close();
  });

  it("rewrites only that double-quoted token, outside strings and comments", () => {
    expect(quoteAsString(`SELECT a FROM t WHERE a = "AKO" OR b = 'x "AKO"' -- "AKO"\n`, "AKO")).toBe(
      `SELECT a FROM t WHERE a = 'AKO' OR b = 'x "AKO"' -- "AKO"\n`,
    );
    expect(quoteAsString(`SELECT "a" FROM t WHERE n = "O'Brien"`, "O'Brien")).toBe(
      `SELECT "a" FROM t WHERE n = 'O''Brien'`,
    );
    expect(quoteAsString(`SELECT a FROM t WHERE a = 'AKO'`, "AKO")).toBeUndefined();
  });
});

// Opening a database file for the sql tools: read-only at the file level (SQLITE_OPEN_READONLY,
// and the file must exist) and at the connection level (`PRAGMA query_only`), so that nothing a
// query does can change or create a file. Sorting and other temporary storage stays in memory,
// under a heap limit for all of SQLite in this (query) process, so a query cannot fill the disk.
// Connections are cached per file for the process's life.
import Database from "better-sqlite3";

/** SQLite's memory limit in a query process; past it a statement fails with "out of memory". */
export const SQLITE_HEAP_LIMIT_BYTES = 256 * 1024 * 1024;

const open = new Map<string, Database.Database>();

export function connectionFor(file: string): Database.Database {
  let db = open.get(file);
  if (db === undefined) {
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma("query_only = ON");
    db.pragma("temp_store = MEMORY");
    db.pragma(`hard_heap_limit = ${SQLITE_HEAP_LIMIT_BYTES}`);
    open.set(file, db);
  }
  return db;
}

// The databases the sql tools may open: the SQLite files of one directory, by id. Spider's layout
// `DIR/<db_id>/<db_id>.sqlite` gives id `<db_id>`; a plain `DIR/<name>.sqlite` (or .sqlite3, .db)
// gives id `<name>`. Tools name a database only by id, so no path from a caller is ever opened.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { ToolError } from "@rlfactory/toolkit";

const ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const EXTENSIONS = [".sqlite", ".sqlite3", ".db"];

function scan(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (!ID.test(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const file = EXTENSIONS.map((ext) => join(path, `${entry.name}${ext}`)).find(
        (f) => existsSync(f) && statSync(f).isFile(),
      );
      if (file !== undefined && !found.has(entry.name)) found.set(entry.name, file);
      continue;
    }
    const ext = EXTENSIONS.find((e) => entry.name.endsWith(e));
    if (ext === undefined || !entry.isFile()) continue;
    const id = entry.name.slice(0, -ext.length);
    if (ID.test(id) && !found.has(id)) found.set(id, path);
  }
  return found;
}

export class DatabaseDirectory {
  readonly dir: string;
  private files: Map<string, string>;

  /** Reads the directory; throws an Error if it cannot be read. */
  constructor(dir: string) {
    this.dir = resolve(dir);
    this.files = scan(this.dir);
  }

  ids(): string[] {
    return [...this.files.keys()];
  }

  /** The file of database `id`; rescans once for a database added since; ToolError if unknown. */
  fileOf(id: string): string {
    let file = this.files.get(id);
    if (file === undefined) {
      this.files = scan(this.dir);
      file = this.files.get(id);
    }
    if (file === undefined) {
      const ids = this.ids();
      const shown = ids.slice(0, 20).join(", ") + (ids.length > 20 ? `, ... (${ids.length} in all)` : "");
      throw new ToolError(`unknown database ${JSON.stringify(id)}; available: ${shown || "none"}`);
    }
    return file;
  }
}

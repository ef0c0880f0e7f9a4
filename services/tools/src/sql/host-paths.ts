// Host paths never reach a caller: the server's directories and files are the operator's business
// (a model that learns them learns where to aim). Statements that could read them are refused
// (see read-only-statement.ts); error text is passed through `withoutHostPaths` besides, since
// some messages (a native module that fails to load, an open failure) may carry one.

/** An absolute path of two segments or more (`/a/b`, `C:\a\b`), up to a space, quote or bracket. */
const ABSOLUTE_PATH = /(?:[A-Za-z]:)?[\\/][^\s'"`()[\]\\/:]+[\\/][^\s'"`()[\]]*/g;

export const HIDDEN_PATH = "<path>";

/** `text` with every absolute path replaced by `<path>`. */
export function withoutHostPaths(text: string): string {
  return text.replace(ABSOLUTE_PATH, HIDDEN_PATH);
}

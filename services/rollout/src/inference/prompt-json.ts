// The JSON text of a trajectory's prompt ids, built incrementally. A trajectory's next prompt is its
// previous prompt plus the new turn's ids, so serialising the whole list every turn costs O(context) per
// turn for text the previous request already held. `PromptJson` keeps, per session (trajectory id), a
// copy of the ids it serialised last and their text; when the new list starts with exactly those ids it
// serialises only the rest. Anything else (a truncated, edited or forked list, an id that is not a
// non-negative 32-bit integer) is serialised whole, as before, and replaces the entry. The text is always
// byte for byte what `JSON.stringify(ids)` gives.
//
// Bounded: the entries together hold at most `maxIds` ids (their arrays grow by doubling, so at most
// twice as many slots); least recently used entries go first, so a trajectory that ended ages out.

interface Entry {
  /** The ids serialised last (first `length` slots), as a growable Int32Array. */
  ids: Int32Array;
  length: number;
  /** `JSON.stringify(ids)` without its closing bracket: `[` plus the comma-separated ids. */
  open: string;
}

/** Default total of ids kept across sessions: 4 Mi (at most 32 MiB of Int32Array slots, plus their text). */
export const DEFAULT_PROMPT_JSON_IDS = 4 * 1024 * 1024;

const isInt32Id = (x: unknown): boolean => typeof x === "number" && (x | 0) === x && x >= 0;

export class PromptJson {
  readonly #maxIds: number;
  readonly #entries = new Map<string, Entry>();
  #ids = 0;

  constructor(maxIds: number = DEFAULT_PROMPT_JSON_IDS) {
    this.#maxIds = maxIds;
  }

  /** `JSON.stringify(ids)`, reusing the text of the session's previous list when it is a prefix of this one. */
  stringify(sessionId: string | undefined, ids: readonly number[]): string {
    if (sessionId === undefined) return JSON.stringify(ids);
    const entry = this.#entries.get(sessionId);
    if (entry !== undefined) {
      this.#entries.delete(sessionId); // re-inserted below: most recently used last
      this.#ids -= entry.length;
      const grown = extend(entry, ids);
      if (grown !== undefined) return this.#keep(sessionId, grown);
    }
    const text = JSON.stringify(ids);
    const fresh = fromScratch(ids, text);
    if (fresh !== undefined) this.#keep(sessionId, fresh);
    return text;
  }

  /** Sessions remembered (for tests). */
  get size(): number {
    return this.#entries.size;
  }

  #keep(sessionId: string, entry: Entry): string {
    const text = `${entry.open}]`;
    if (entry.length > this.#maxIds) return text;
    this.#entries.set(sessionId, entry);
    this.#ids += entry.length;
    for (const [key, old] of this.#entries) {
      if (this.#ids <= this.#maxIds) break;
      this.#entries.delete(key);
      this.#ids -= old.length;
    }
    return text;
  }
}

/** The entry for `ids` when its first `entry.length` ids are the entry's (compared one by one), else undefined. */
function extend(entry: Entry, ids: readonly number[]): Entry | undefined {
  const n = entry.length;
  if (ids.length < n) return undefined;
  const kept = entry.ids;
  for (let i = 0; i < n; i++) if (kept[i] !== ids[i]) return undefined;
  if (ids.length === n) return entry;
  for (let i = n; i < ids.length; i++) if (!isInt32Id(ids[i])) return undefined;
  const added = JSON.stringify(ids.slice(n));
  let store = kept;
  if (ids.length > kept.length) {
    store = new Int32Array(Math.max(ids.length, kept.length * 2));
    store.set(kept.subarray(0, n));
  }
  for (let i = n; i < ids.length; i++) store[i] = ids[i]!;
  // `[a,b` + `,c,d` (or `[` + `c,d` when the previous list was empty)
  const open = n === 0 ? `[${added.slice(1, -1)}` : `${entry.open},${added.slice(1, -1)}`;
  return { ids: store, length: ids.length, open };
}

function fromScratch(ids: readonly number[], text: string): Entry | undefined {
  const store = new Int32Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    if (!isInt32Id(ids[i])) return undefined;
    store[i] = ids[i]!;
  }
  return { ids: store, length: ids.length, open: text.slice(0, -1) };
}

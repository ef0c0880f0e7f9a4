// A generation request's body, with the JSON of a trajectory's prompt ids built incrementally and kept as
// bytes. A trajectory's next prompt is its previous prompt plus the new turn's ids, so serialising the
// whole list every turn costs O(context) per turn for text the previous request already held.
// `PromptJson` keeps, per session (trajectory id), a copy of the ids it serialised last and their JSON as
// UTF-8 bytes; when the new list starts with exactly those ids it serialises only the rest. Anything else
// (a truncated, edited or forked list, an id that is not a non-negative 32-bit integer) is serialised
// whole, as before, and replaces the entry. The body is always byte for byte the UTF-8 of
// `head + JSON.stringify(ids) + tail`.
//
// Why bytes: at thousands of trajectories in flight a request waits seconds for its answer, holding its
// body; as a string it would be copied by the young generation's GC and promoted, turn after turn. The
// entries' JSON and the body are Buffers, off the JS heap.
//
// Bounded: the entries together hold at most `maxIds` ids (their arrays grow by doubling, so at most
// twice as many slots, and their JSON at most twice its bytes); least recently used entries go first, so
// a trajectory that ended ages out.

interface Entry {
  /** The ids serialised last (first `length` slots), as a growable Int32Array. */
  ids: Int32Array;
  length: number;
  /** `JSON.stringify(ids)` without its closing bracket (`[` plus the comma-separated ids), in the first `size` bytes. */
  json: Buffer;
  size: number;
}

/** Default total of ids kept across sessions: 4 Mi (at most 32 MiB of Int32Array slots, plus their JSON). */
export const DEFAULT_PROMPT_JSON_IDS = 4 * 1024 * 1024;

const CLOSE_BRACKET = 0x5d;

const isInt32Id = (x: unknown): boolean => typeof x === "number" && (x | 0) === x && x >= 0;

export class PromptJson {
  readonly #maxIds: number;
  readonly #entries = new Map<string, Entry>();
  #ids = 0;

  constructor(maxIds: number = DEFAULT_PROMPT_JSON_IDS) {
    this.#maxIds = maxIds;
  }

  /**
   * The UTF-8 bytes of `head + JSON.stringify(ids) + tail`, reusing the JSON of the session's previous
   * list when it is a prefix of this one.
   */
  body(sessionId: string | undefined, ids: readonly number[], head: string, tail: string): Buffer {
    const entry = sessionId === undefined ? undefined : this.#entry(sessionId, ids);
    if (entry === undefined) return Buffer.from(`${head}${JSON.stringify(ids)}${tail}`);
    const headBytes = Buffer.byteLength(head);
    const out = Buffer.allocUnsafe(headBytes + entry.size + 1 + Buffer.byteLength(tail));
    out.write(head, 0);
    entry.json.copy(out, headBytes, 0, entry.size);
    out[headBytes + entry.size] = CLOSE_BRACKET;
    out.write(tail, headBytes + entry.size + 1);
    return out;
  }

  /** Sessions remembered (for tests). */
  get size(): number {
    return this.#entries.size;
  }

  /** The session's entry grown (or made afresh) for `ids`; undefined when `ids` cannot be kept. */
  #entry(sessionId: string, ids: readonly number[]): Entry | undefined {
    const old = this.#entries.get(sessionId);
    if (old !== undefined) {
      this.#entries.delete(sessionId); // re-inserted below: most recently used last
      this.#ids -= old.length;
    }
    const entry = (old === undefined ? undefined : extend(old, ids)) ?? fromScratch(ids);
    if (entry === undefined || entry.length > this.#maxIds) return entry;
    this.#entries.set(sessionId, entry);
    this.#ids += entry.length;
    for (const [key, kept] of this.#entries) {
      if (this.#ids <= this.#maxIds) break;
      this.#entries.delete(key);
      this.#ids -= kept.length;
    }
    return entry;
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
  // `[a,b` + `,c,d` (or `[` + `c,d` when the previous list was empty); the ids' JSON is ASCII
  const more = n === 0 ? added.slice(1, -1) : `,${added.slice(1, -1)}`;
  const size = entry.size + more.length;
  let json = entry.json;
  if (size > json.length) {
    json = Buffer.allocUnsafeSlow(Math.max(size, json.length * 2));
    entry.json.copy(json, 0, 0, entry.size);
  }
  json.write(more, entry.size, "latin1");
  return { ids: store, length: ids.length, json, size };
}

function fromScratch(ids: readonly number[]): Entry | undefined {
  const store = new Int32Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    if (!isInt32Id(ids[i])) return undefined;
    store[i] = ids[i]!;
  }
  const open = JSON.stringify(ids).slice(0, -1);
  const json = Buffer.allocUnsafeSlow(Math.max(64, open.length * 2));
  json.write(open, 0, "latin1");
  return { ids: store, length: ids.length, json, size: open.length };
}

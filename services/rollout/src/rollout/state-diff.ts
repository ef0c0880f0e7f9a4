// Environment states stored as diffs: an episode's state after a user turn as a JSON Patch (RFC 6902,
// fast-json-patch) against the episode's initial state, so a 2 MB database that changes one row stores
// one row. The initial state is named by its digest (sha256 of its canonical JSON: keys sorted), so
// whoever rebuilds the state can check that its base is the one the diff was made against.
import { createHash } from "node:crypto";
import jsonPatch, { type Operation } from "fast-json-patch";

/** A state's diff against the initial state, as RFC 6902 operations. */
export type StateDiff = Operation[];

const isContainer = (x: unknown): x is object => x !== null && typeof x === "object";

/** The operations that turn `initial` into `state` (a whole replacement when either is not an object or array). */
export function stateDiff(initial: unknown, state: unknown): StateDiff {
  if (isContainer(initial) && isContainer(state) && Array.isArray(initial) === Array.isArray(state))
    return jsonPatch.compare(initial, state);
  return [{ op: "replace", path: "", value: state ?? null }];
}

/** The full state: `diff` applied to a copy of `initial` (which is left as it was). */
export function applyStateDiff(initial: unknown, diff: StateDiff): unknown {
  return jsonPatch.applyPatch(jsonPatch.deepClone(initial ?? null), diff, true, false).newDocument;
}

/** JSON with object keys sorted at every level: equal states, equal text, whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isContainer(value)) {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/** `sha256:<hex>` of the state's canonical JSON. */
export function stateDigest(state: unknown): string {
  return `sha256:${createHash("sha256").update(canonicalJson(state)).digest("hex")}`;
}

// `state_match`: checks on the final state of a rollout's environment episode (the last snapshot in
// `metadata.environment.snapshots`, docs/trajectory.md), for any environment. Its value is the
// fraction of checks that pass. Checks come from the config, from the task, or both:
//   - `checks: [{path, equals: X} | {path, contains: X}]` — `path` a JSON path (`$.a.b[0]`, `a.b.0`,
//     `$["odd key"]`); `equals`: deep equality; `contains`: an array holding an element equal to X, a
//     string holding the substring X, or an object of which X is a deep subset;
//   - `expected_from: PATH` — a path into the task (e.g. `ground_truth.final_state`) to an expected
//     subset object: each of its leaves (a value that is not a non-empty object) is one `equals` check
//     at its path (arrays compare whole).
// A snapshot stored as a diff (over `rollout.max_snapshot_bytes`) is rebuilt from the environment's
// initial state (stored-state.ts). No snapshot (the task has no environment), a snapshot stored
// truncated (its diff over the bound too), or a task without the `expected_from` value: a
// reward_error, never 0.
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { RewardConfigError } from "./errors.ts";
import { finalStoredSnapshot, freshInitialState, rebuiltState } from "./stored-state.ts";
import { componentBaseShape, componentName, defineRewardComponent, type RewardComponent } from "./types.ts";

const stateCheckSchema = z.union([
  z.strictObject({ path: z.string().min(1), equals: z.unknown() }),
  z.strictObject({ path: z.string().min(1), contains: z.unknown() }),
]);
export type StateCheck = z.infer<typeof stateCheckSchema>;

export const stateMatchSchema = z
  .strictObject({
    type: z.literal("state_match"),
    ...componentBaseShape,
    checks: z.array(stateCheckSchema).default([]),
    expected_from: z.string().min(1).optional(),
  })
  .refine((c) => c.checks.length > 0 || c.expected_from !== undefined, {
    message: "state_match needs `checks` or `expected_from`",
    path: ["checks"],
  });
export type StateMatchConfig = z.infer<typeof stateMatchSchema>;

const MISSING = Symbol("missing");

/** The segments of a JSON path: `$.a.b[0]`, `a.b.0`, `$["odd key"]`. Throws on a malformed path. */
export function parseJsonPath(path: string): (string | number)[] {
  const rest = path.replace(/^\$/, "");
  const out: (string | number)[] = [];
  const token = /\.([^.[\]]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]|^([^.[\]$][^.[\]]*)/gy;
  let at = 0;
  while (at < rest.length) {
    token.lastIndex = at;
    const m = token.exec(rest);
    if (m === null) throw new Error(`malformed JSON path ${JSON.stringify(path)} at ${at}`);
    if (m[2] !== undefined) out.push(Number(m[2]));
    else if (m[3] !== undefined) out.push(JSON.parse(`"${m[3]}"`) as string);
    else out.push((m[1] ?? m[4])!);
    at = token.lastIndex;
  }
  return out;
}

/** The value at `path` in `root`, or MISSING. */
function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let v: unknown = root;
  for (const seg of path) {
    if (v === null || typeof v !== "object") return MISSING;
    const key = Array.isArray(v) && typeof seg === "string" && /^\d+$/.test(seg) ? Number(seg) : seg;
    if (!Object.hasOwn(v, key)) return MISSING;
    v = (v as Record<string | number, unknown>)[key];
  }
  return v;
}

const isObject = (x: unknown): x is Record<string, unknown> =>
  x !== null && typeof x === "object" && !Array.isArray(x);

/** `expected` is a deep subset of `actual`: objects key by key, anything else equal. */
function isSubset(expected: unknown, actual: unknown): boolean {
  if (isObject(expected) && isObject(actual)) {
    return Object.entries(expected).every(([k, v]) => Object.hasOwn(actual, k) && isSubset(v, actual[k]));
  }
  return isDeepStrictEqual(expected, actual);
}

function contains(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(actual)) return actual.some((x) => isDeepStrictEqual(x, expected));
  if (typeof actual === "string" && typeof expected === "string") return actual.includes(expected);
  if (isObject(actual)) return isSubset(expected, actual);
  return false;
}

/** Whether one check passes on `state`. */
export function checkPasses(state: unknown, check: StateCheck): boolean {
  const actual = valueAt(state, parseJsonPath(check.path));
  if (actual === MISSING) return false;
  return "equals" in check ? isDeepStrictEqual(actual, check.equals) : contains(actual, check.contains);
}

/** An expected subset object as `equals` checks, one per leaf. */
export function subsetChecks(expected: unknown, prefix = "$"): StateCheck[] {
  if (!isObject(expected) || Object.keys(expected).length === 0) {
    return [isObject(expected) ? { path: prefix, contains: {} } : { path: prefix, equals: expected }];
  }
  return Object.entries(expected).flatMap(([k, v]) => subsetChecks(v, `${prefix}[${JSON.stringify(k)}]`));
}

export function createStateMatch(config: StateMatchConfig): RewardComponent {
  const name = componentName(config);
  // malformed paths are a config error at load time, not per trajectory
  for (const c of config.checks) parseJsonPath(c.path);
  const expectedPath = config.expected_from === undefined ? undefined : parseJsonPath(config.expected_from);
  return {
    name,
    weight: config.weight,
    score: async ({ task, trajectory }, ctx) => {
      const state = await rebuiltState(
        finalStoredSnapshot(trajectory, name),
        freshInitialState(task, ctx, name),
        name,
      );
      const checks = [...config.checks];
      if (expectedPath !== undefined) {
        const expected = valueAt(task, expectedPath);
        if (expected === MISSING) {
          throw new RewardConfigError(
            name,
            "NO_EXPECTED_STATE",
            `task ${task.id} has no ${config.expected_from} (state_match.expected_from)`,
          );
        }
        checks.push(...subsetChecks(expected));
      }
      const failed = checks.filter((c) => !checkPasses(state, c));
      const passed = checks.length - failed.length;
      return {
        value: passed / checks.length,
        ...(failed.length === 0
          ? {}
          : {
              detail: `${passed} of ${checks.length} checks passed; failed: ${failed.map((c) => c.path).join(", ")}`,
            }),
      };
    },
  };
}

export const stateMatchComponent = defineRewardComponent({
  schema: stateMatchSchema,
  range: [0, 1],
  create: createStateMatch,
});

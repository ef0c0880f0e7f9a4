// How deep a JSON value nests, checked without recursion: arguments and episode configs are held to
// max_argument_depth before anything recursive (schema validation, JSON.stringify, a server's parser)
// sees them.

/**
 * True when `value` nests objects/arrays more than `limit` levels deep (the arguments object itself is
 * level 1). Iterative — an explicit stack, no recursion — so any depth is safe to check.
 */
export function exceedsDepth(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [v, depth] = item;
    if (v === null || typeof v !== "object") continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
  return false;
}

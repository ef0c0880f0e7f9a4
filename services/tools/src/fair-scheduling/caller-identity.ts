// Who "a caller" is, for the fair queue: the identity named in the call's `_meta` under
// `rlfactory/caller` (the gateway sets it to the call's trajectory id; any client that multiplexes callers may),
// else the MCP session the call came in on (a 2025-era HTTP session), else one shared caller for
// every call (stdio, stateless HTTP) — which the queue then serves in arrival order.
import { CALLER_META_KEY, type ToolContext } from "@rlfactory/toolkit";

export { CALLER_META_KEY };
/** The caller of calls that name none and come in on no session. */
export const SHARED_CALLER = "shared";
const MAX_CALLER_CHARS = 200;

export function callerOf(ctx: ToolContext): string {
  const named = ctx.meta?.[CALLER_META_KEY];
  if (typeof named === "string" && named.length > 0) return `meta:${named.slice(0, MAX_CALLER_CHARS)}`;
  if (ctx.sessionId !== undefined) return `session:${ctx.sessionId}`;
  return SHARED_CALLER;
}

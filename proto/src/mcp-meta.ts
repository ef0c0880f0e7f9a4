// `_meta` keys that rlfactory's MCP tool servers (written with @rlfactory/toolkit) and the gateway
// agree on: part of the protocol between them, beside the gRPC definitions.

/**
 * The `_meta` key of a listed tool that cannot run here (e.g. the code sandbox without bubblewrap);
 * its value is the reason, with how to fix it. The toolkit writes it (ToolSpec.unavailable); the
 * gateway reads it and answers calls of that tool UNAVAILABLE with the reason.
 */
export const UNAVAILABLE_META_KEY = "rlfactory/unavailable";

/**
 * The `_meta` key of a `tools/call` naming who the call is for: the gateway sets it to the call's
 * trajectory id (when the caller gave one), so a tool server that shares its capacity between
 * callers (the SQL server's fair queue) can tell a gateway's many callers apart.
 */
export const CALLER_META_KEY = "rlfactory/caller";

/**
 * The `_meta` key of a `tools/call` result saying what the call spent on a model:
 * `{prompt_tokens, completion_tokens, cost_usd?, model}`. The gateway's model tools write it; the
 * gateway returns it as ToolResult.usage (never for a cache hit: nothing was spent).
 */
export const USAGE_META_KEY = "rlfactory/usage";

// The MCP client of one upstream connection: the SDK's Client, plus a tools/call for the calls that use
// none of what `Client.callTool()` adds per call.
//
// `callTool()` does three things besides the request, every call: it looks up the tool's output-schema
// validator in the SDK's response cache, scans the tool's input schema for `x-mcp-header` declarations
// (mirrored into HTTP headers on the 2026-07-28 era's HTTP transports), and resolves the result schema
// by validating `undefined` against it and formatting that zod failure. For a tool with no output schema
// on a stdio connection, the first two change nothing, and the third is a cost with no answer to give:
// in the gateway's profile under episode load the three were 8 % of its busy time. `callToolPlain()` sends
// the same request and checks the answer against the same result schema (the negotiated era's, resolved
// once per connection): the same results and the same errors, without the per-call work.
import {
  type CallToolResult,
  Client,
  type RequestOptions,
  type StandardSchemaV1,
} from "@modelcontextprotocol/client";

export class UpstreamClient extends Client {
  #resultSchema: StandardSchemaV1<unknown, CallToolResult> | undefined;

  /**
   * tools/call without the output-schema check and `x-mcp-header` mirroring of `callTool()`: only for a
   * tool without an `outputSchema`, on a transport that carries no headers (stdio).
   */
  callToolPlain(
    params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> },
    options: RequestOptions,
  ): Promise<CallToolResult> {
    this.#resultSchema ??= this.#callToolResultSchema();
    return this.request({ method: "tools/call", params }, this.#resultSchema, options);
  }

  /** The negotiated era's tools/call result schema, as `request()` resolves it for a spec method. */
  #callToolResultSchema(): StandardSchemaV1<unknown, CallToolResult> {
    const codec = this._wireCodec();
    return {
      "~standard": {
        version: 1,
        vendor: "mcp-wire-codec",
        validate(value: unknown) {
          const outcome = codec.validateResult("tools/call", value);
          if (outcome.ok) return { value: outcome.value as CallToolResult };
          return {
            issues: [{ message: outcome.reason === "invalid" ? outcome.message : "not-in-era: tools/call" }],
          };
        },
      },
    };
  }
}

// Splits a stdio server's output into JSON-RPC messages, as the MCP SDK's ReadBuffer does, with one
// shortcut: a plain result response — exactly `{"jsonrpc":"2.0","id":…,"result":{…}}`, a result without
// `_meta` — is taken as parsed. The SDK checks every line against its whole JSON-RPC message union in
// zod, which for a response first fails the request and notification members and builds their issues:
// in the gateway's profile under episode load, 4 % of its busy time for the answers that make up
// nearly every line. For such a line the union's answer is that same object, so nothing changes;
// every other line (requests, notifications, errors, `_meta`, anything malformed) still goes through
// the SDK's check, with its errors.
import {
  type JSONRPCMessage,
  parseJSONRPCMessage,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
} from "@modelcontextprotocol/client";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `{jsonrpc: "2.0", id, result}` and nothing else, `id` a string or a safe integer, `result` an object without `_meta`. */
function isPlainResultResponse(value: unknown): value is JSONRPCMessage {
  if (!isPlainObject(value) || value.jsonrpc !== "2.0") return false;
  const { id, result } = value;
  return (
    Object.keys(value).length === 3 &&
    (typeof id === "string" || Number.isSafeInteger(id)) &&
    isPlainObject(result) &&
    !Object.hasOwn(result, "_meta")
  );
}

export class JsonRpcLineReader {
  #buffer: Buffer | undefined;
  #maxBufferSize: number;

  constructor(options: { maxBufferSize?: number } = {}) {
    this.#maxBufferSize = options.maxBufferSize ?? STDIO_DEFAULT_MAX_BUFFER_SIZE;
  }

  append(chunk: Buffer): void {
    if ((this.#buffer?.length ?? 0) + chunk.length > this.#maxBufferSize) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.#maxBufferSize} bytes`);
    }
    this.#buffer = this.#buffer ? Buffer.concat([this.#buffer, chunk]) : chunk;
  }

  /** The next message, or null when no whole line is buffered; a line that is not JSON is skipped. */
  readMessage(): JSONRPCMessage | null {
    while (this.#buffer) {
      const index = this.#buffer.indexOf("\n");
      if (index === -1) return null;
      const line = this.#buffer.toString("utf8", 0, index).replace(/\r$/, "");
      this.#buffer = this.#buffer.subarray(index + 1);
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        if (error instanceof SyntaxError) continue;
        throw error;
      }
      return isPlainResultResponse(value) ? value : parseJSONRPCMessage(value);
    }
    return null;
  }

  clear(): void {
    this.#buffer = undefined;
  }
}

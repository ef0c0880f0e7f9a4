// The gateway's stdio line reader reads what the MCP SDK's ReadBuffer reads: the same messages from the
// same bytes however they are chunked, the same skipped lines, the same rejections.
import { ReadBuffer } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { JsonRpcLineReader } from "./json-rpc-line-reader.ts";

const LINES = [
  '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}',
  '{"jsonrpc":"2.0","id":"a-7","result":{"structuredContent":{"x":1},"content":[]}}',
  '{"jsonrpc":"2.0","id":2,"result":{"_meta":{"k":"v"},"content":[]}}',
  '{"jsonrpc":"2.0","id":3,"method":"roots/list"}',
  '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}',
  '{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"bad"}}',
  "not json at all",
  '{"jsonrpc":"2.0","id":5,"result":{},"extra":true}',
  '{"jsonrpc":"1.0","id":6,"result":{}}',
  '{"jsonrpc":"2.0","id":1.5,"result":{}}',
  '{"jsonrpc":"2.0","id":7,"result":[1,2]}',
  '{"jsonrpc":"2.0","id":8,"result":{"content":[]}}\r',
];

type Reader = Pick<ReadBuffer, "append" | "readMessage">;

/** Everything a reader yields for `text` fed in pieces of `size` bytes: messages, and errors by message. */
function drain(reader: Reader, text: string, size: number): unknown[] {
  const bytes = Buffer.from(text);
  const out: unknown[] = [];
  for (let at = 0; at < bytes.length; at += size) {
    reader.append(bytes.subarray(at, at + size));
    for (;;) {
      try {
        const message = reader.readMessage();
        if (message === null) break;
        out.push(message);
      } catch (error) {
        out.push({ threw: (error as Error).constructor.name });
      }
    }
  }
  return out;
}

describe("JsonRpcLineReader", () => {
  it("yields what the SDK's ReadBuffer yields, for any chunking", () => {
    const text = `${LINES.join("\n")}\n`;
    for (const size of [1, 7, 64, text.length]) {
      const ours = drain(new JsonRpcLineReader(), text, size);
      expect(ours).toEqual(drain(new ReadBuffer(), text, size));
      // the valid ones: two plain results, one with _meta, a request, a notification, an error, \r-ended
      expect(ours.filter((m) => !(m as { threw?: string }).threw)).toHaveLength(7);
    }
  });

  it("refuses more buffered bytes than its limit, as the SDK's does", () => {
    const reader = new JsonRpcLineReader({ maxBufferSize: 16 });
    expect(() => reader.append(Buffer.from("x".repeat(17)))).toThrow(
      "ReadBuffer exceeded maximum size of 16 bytes",
    );
  });
});

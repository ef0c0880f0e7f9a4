// The MCP SDK's stdio client transport, with the requests sent during one turn of the event loop
// written to the server's stdin together at its end (corked at the first, uncorked in the check phase):
// with many calls in flight to one stdio server, one writev instead of one write (and one wake-up of
// the server) per request. Order is kept; nothing waits longer than the current turn, and a batch that
// reaches half the pipe's high-water mark leaves at once (corking never reports backpressure the server
// did not cause). Its output is split into messages by json-rpc-line-reader.ts (the SDK's reader with a
// shortcut for plain result responses).
import type { ChildProcess } from "node:child_process";
import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import { StdioClientTransport, type StdioServerParameters } from "@modelcontextprotocol/client/stdio";
import { JsonRpcLineReader } from "./json-rpc-line-reader.ts";

export class CoalescingStdioClientTransport extends StdioClientTransport {
  #corked = false;

  constructor(server: StdioServerParameters) {
    super(server);
    // The SDK keeps its line reader in `_readBuffer` and calls only append / readMessage / clear on it.
    (this as unknown as { _readBuffer: JsonRpcLineReader })._readBuffer = new JsonRpcLineReader({
      maxBufferSize: server.maxBufferSize,
    });
  }

  override send(message: JSONRPCMessage): Promise<void> {
    // The SDK keeps the spawned process in `_process` (absent before start and after close).
    const stdin = (this as unknown as { _process?: ChildProcess })._process?.stdin;
    if (stdin && !this.#corked) {
      this.#corked = true;
      stdin.cork();
      setImmediate(() => this.#uncork(stdin));
    }
    const sent = super.send(message);
    if (stdin && stdin.writableLength >= stdin.writableHighWaterMark / 2) this.#uncork(stdin);
    return sent;
  }

  #uncork(stdin: NonNullable<ChildProcess["stdin"]>): void {
    if (!this.#corked) return;
    this.#corked = false;
    stdin.uncork();
  }
}

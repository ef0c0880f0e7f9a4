// The MCP SDK's stdio client transport, with the requests sent during one turn of the event loop
// written to the server's stdin together at its end (corked at the first, uncorked in the check phase):
// with many calls in flight to one stdio server, one writev instead of one write (and one wake-up of
// the server) per request. Order is kept; nothing waits longer than the current turn, and a batch that
// reaches half the pipe's high-water mark leaves at once (corking never reports backpressure the server
// did not cause).
import type { ChildProcess } from "node:child_process";
import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

export class CoalescingStdioClientTransport extends StdioClientTransport {
  #corked = false;

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

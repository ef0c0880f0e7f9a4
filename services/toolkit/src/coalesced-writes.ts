// Writes made to a stream during one turn of the event loop leave together at its end: the stream is
// corked at the first write and uncorked in the check phase, so a burst of messages (many requests in
// flight over one stdio connection) costs one writev system call instead of one write each. Order is
// kept; nothing waits longer than the current turn, and a batch that reaches half the stream's
// high-water mark leaves at once (corking never reports backpressure the reader did not cause).
import type { Writable } from "node:stream";

export function coalesceWrites<W extends Writable>(stream: W): W {
  const write = stream.write;
  let corked = false;
  stream.write = function (this: W, ...args: Parameters<Writable["write"]>) {
    if (!corked) {
      corked = true;
      stream.cork();
      setImmediate(() => {
        if (!corked) return;
        corked = false;
        stream.uncork();
      });
    }
    const ok = write.apply(this, args);
    if (corked && stream.writableLength >= stream.writableHighWaterMark / 2) {
      corked = false;
      stream.uncork();
    }
    return ok;
  } as W["write"];
  return stream;
}

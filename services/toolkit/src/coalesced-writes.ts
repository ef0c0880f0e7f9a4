// Writes made to a stream during one turn of the event loop leave together at its end: the stream is
// corked at the first write and uncorked in the check phase, so a burst of messages (many requests in
// flight over one stdio connection) costs one writev system call instead of one write each. Order is
// kept; nothing waits longer than the current turn.
import type { Writable } from "node:stream";

export function coalesceWrites<W extends Writable>(stream: W): W {
  const write = stream.write;
  let corked = false;
  stream.write = function (this: W, ...args: Parameters<Writable["write"]>) {
    if (!corked) {
      corked = true;
      stream.cork();
      setImmediate(() => {
        corked = false;
        stream.uncork();
      });
    }
    return write.apply(this, args);
  } as W["write"];
  return stream;
}

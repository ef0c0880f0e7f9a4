// A request body declared over a server's limit: read it to its end (and drop it) before answering 413.
//
// Answering 413 while the client is still uploading, then closing the connection (what fastify does on
// its own), closes a socket with unread data in it: the kernel answers that with a reset, and a client
// that is still writing — or has not yet read the 413 — sees "connection reset" instead of the answer.
// Reading the rest first makes the 413 arrive, and the connection stays usable for the next request.
// Bodies declared far beyond the limit are not read: those are answered with `connection: close`.
import type { IncomingMessage } from "node:http";

/** Bodies declared up to this multiple of the limit are read to their end before the 413. */
export const OVERSIZED_BODY_DRAIN_FACTOR = 4;

export interface OversizedBody {
  /** The body's declared length (Content-Length), in bytes. */
  declared: number;
  /**
   * Read to its end (or until the client went away): answer on this connection as usual. False when
   * the declared length was beyond the drain factor and nothing was read: answer with `connection: close`.
   */
  drained: boolean;
}

/**
 * For a request whose Content-Length is over `limitBytes`: reads the body to its end and drops it when
 * it is at most OVERSIZED_BODY_DRAIN_FACTOR × the limit. Undefined for a body within the limit or without
 * a declared length (a chunked body over the limit is cut by the framework as it arrives).
 */
export async function readOversizedBody(
  req: IncomingMessage,
  limitBytes: number,
): Promise<OversizedBody | undefined> {
  const declared = Number(req.headers["content-length"]);
  if (!(declared > limitBytes)) return undefined;
  if (declared > limitBytes * OVERSIZED_BODY_DRAIN_FACTOR) return { declared, drained: false };
  await new Promise<void>((resolve) => {
    req.once("end", resolve);
    req.once("error", () => resolve());
    req.once("close", resolve);
    req.resume();
  });
  return { declared, drained: true };
}

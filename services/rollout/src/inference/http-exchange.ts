// One HTTP request and its whole answer as bytes, on undici's dispatcher protocol (`dispatch(options,
// handler)`) rather than `request()`: no body stream, no promise per chunk, no AbortSignal listener per
// request in undici. The answer's chunks are gathered once at its end; the caller decodes what it reads.
//
// Bounds: at most `maxBytes` of the body are kept. A longer body ends the exchange at once with
// `complete: false` and the request is aborted, which closes its connection (the rest is never read).

import type { Dispatcher } from "undici";

export interface Exchange {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array;
}

export interface ExchangeAnswer {
  status: number;
  body: Buffer;
  /** False when the body was longer than the bound: `body` is then its first `maxBytes` bytes. */
  complete: boolean;
}

/** Why an exchange was stopped from here: the caller's signal, the body bound, the deadline. */
class Stopped extends Error {}

/** What an exchange rejects with when it ran past its deadline (the request is aborted). */
export class ExchangeTimedOut extends Error {
  override name = "ExchangeTimedOut";
}

/**
 * Sends `exchange` on `dispatcher` and reads the answer, keeping at most `maxBytes(status)` bytes of its
 * body. `signal` aborting (before or during the exchange) rejects with the signal's reason, as undici's
 * `request()` does, and aborts the request; so does the deadline, `timeoutMs` from now, rejecting with
 * `ExchangeTimedOut`. (One timer per exchange: no AbortController of its own.)
 */
export function exchange(
  dispatcher: Dispatcher,
  request: Exchange,
  maxBytes: (status: number) => number,
  signal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<ExchangeAnswer> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      if (settled) return;
      done();
      controller?.abort(new Stopped("past its deadline"));
      reject(new ExchangeTimedOut(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    let controller: Dispatcher.DispatchController | undefined;
    let status = 0;
    let limit = 0;
    let size = 0;
    const chunks: Buffer[] = [];
    let settled = false;
    const onAbort = () => {
      if (settled) return;
      done();
      controller?.abort(new Stopped("aborted by the caller"));
      reject(signal!.reason);
    };
    const done = () => {
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    dispatcher.dispatch(
      { method: request.method, path: request.path, headers: request.headers, body: request.body ?? null },
      {
        onRequestStart(c) {
          controller = c;
          if (settled) c.abort(new Stopped("aborted before it started"));
        },
        onResponseStart(_c, statusCode) {
          status = statusCode;
          limit = maxBytes(statusCode);
        },
        onResponseData(c, chunk) {
          if (settled) return;
          if (size + chunk.byteLength > limit) {
            chunks.push(chunk.subarray(0, limit - size));
            size = limit;
            done();
            resolve({ status, body: Buffer.concat(chunks, size), complete: false });
            c.abort(new Stopped("body over its bound"));
            return;
          }
          size += chunk.byteLength;
          chunks.push(chunk);
        },
        onResponseEnd() {
          if (settled) return;
          done();
          const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
          resolve({ status, body, complete: true });
        },
        onResponseError(_c, error) {
          if (settled) return;
          done();
          reject(error);
        },
      },
    );
  });
}

// Single-flight: concurrent identical calls share one execution.
//
// The shared execution has its own AbortController. A waiter that gives up (deadline, cancel) leaves
// with its own reason and does not disturb the others; only when the LAST waiter leaves is the shared
// execution aborted, with that waiter's reason (so a timeout still reads as a timeout upstream).

interface Flight<T> {
  promise: Promise<T>;
  controller: AbortController;
  waiters: number;
}

export class SingleFlight<T> {
  #flights = new Map<string, Flight<T>>();

  get size(): number {
    return this.#flights.size;
  }

  has(key: string): boolean {
    return this.#flights.has(key);
  }

  /**
   * Runs `fn` for `key` unless a run is in flight, in which case the caller joins it.
   * Resolves with the shared value and whether this caller joined an existing run.
   */
  async run(
    key: string,
    signal: AbortSignal,
    fn: (signal: AbortSignal) => Promise<T>,
  ): Promise<{ value: T; joined: boolean }> {
    signal.throwIfAborted();
    let flight = this.#flights.get(key);
    const joined = flight !== undefined;
    if (!flight) {
      const controller = new AbortController();
      const created: Flight<T> = {
        controller,
        waiters: 0,
        promise: Promise.resolve()
          .then(() => fn(controller.signal))
          .finally(() => {
            if (this.#flights.get(key) === created) this.#flights.delete(key);
          }),
      };
      // Unobserved rejections are handled by waiters; keep Node from reporting them when all left.
      created.promise.catch(() => {});
      this.#flights.set(key, created);
      flight = created;
    }
    const current = flight;
    current.waiters++;
    try {
      const value = await raceSignal(current.promise, signal);
      return { value, joined };
    } finally {
      current.waiters--;
      if (current.waiters === 0 && signal.aborted && !current.controller.signal.aborted) {
        // Everyone left: stop the work, and let a later caller start afresh.
        if (this.#flights.get(key) === current) this.#flights.delete(key);
        current.controller.abort(signal.reason);
      }
    }
  }
}

/** Rejects with the signal's reason as soon as it aborts, whatever `promise` does. */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

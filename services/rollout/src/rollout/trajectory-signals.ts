// One AbortSignal per trajectory under a rollout request's signal. Every request a trajectory makes
// (generate, CallTools, a reward's tool call) listens on the signal it is given for as long as it runs;
// were that the request's one signal, thousands of trajectories in flight would keep thousands of
// listeners on it, and Node's EventTarget walks its listener list on every add and remove (duplicate
// check, lookup): the cost of each request would grow with the number in flight. Here the request's
// signal has ONE listener, which aborts the trajectories still open; each trajectory's own signal
// carries only its own requests' listeners.

export interface TrajectorySignal {
  readonly signal: AbortSignal;
  /** The trajectory is done: its signal is no longer aborted with the request's (idempotent). */
  close(): void;
}

export class TrajectorySignals {
  readonly #parent: AbortSignal;
  readonly #open = new Set<AbortController>();

  constructor(parent: AbortSignal) {
    this.#parent = parent;
    parent.addEventListener(
      "abort",
      () => {
        for (const c of this.#open) c.abort(parent.reason);
        this.#open.clear();
      },
      { once: true },
    );
  }

  /** A trajectory's signal: aborted with the request's reason when the request is (at once if it was). */
  open(): TrajectorySignal {
    const own = new AbortController();
    if (this.#parent.aborted) own.abort(this.#parent.reason);
    else this.#open.add(own);
    return { signal: own.signal, close: () => this.#open.delete(own) };
  }
}

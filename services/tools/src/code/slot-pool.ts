// A fixed set of numbered slots (0..size-1) handed out one per run, first come first served; callers
// beyond the size wait in a queue, and leave it if their signal aborts. Not the kit's worker pool: a
// slot holds no reusable worker, only the right to start one sandboxed process (and its host uid).

export class SlotPool {
  private readonly free: number[];
  private readonly waiting: Array<(slot: number) => void> = [];

  constructor(size: number) {
    this.free = Array.from({ length: size }, (_, i) => i);
  }

  /** Resolves with a free slot; rejects with the signal's reason if it aborts first. */
  acquire(signal?: AbortSignal): Promise<number> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const slot = this.free.shift();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise<number>((resolve, reject) => {
      const grant = (granted: number) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(granted);
      };
      const onAbort = () => {
        this.waiting.splice(this.waiting.indexOf(grant), 1);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  release(slot: number): void {
    const next = this.waiting.shift();
    if (next) next(slot);
    else this.free.push(slot);
  }

  /** Runs `task` holding a slot. */
  async with<T>(task: (slot: number) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const slot = await this.acquire(signal);
    try {
      return await task(slot);
    } finally {
      this.release(slot);
    }
  }
}

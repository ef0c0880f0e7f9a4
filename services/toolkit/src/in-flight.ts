// Counts work in progress (here: tool-call HTTP exchanges), so a shutdown can wait for it.
export class InFlight {
  private running = 0;
  private readonly idleWaiters = new Set<() => void>();

  get count(): number {
    return this.running;
  }

  /** Marks one unit of work as started; call the returned function (idempotent) when it ends. */
  begin(): () => void {
    this.running++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.running--;
      if (this.running === 0) for (const wake of this.idleWaiters) wake();
    };
  }

  /** Resolves true once nothing is running, or false when `timeoutMs` passes first. */
  whenIdle(timeoutMs: number): Promise<boolean> {
    if (this.running === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (idle: boolean) => {
        clearTimeout(timer);
        this.idleWaiters.delete(wake);
        resolve(idle);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.idleWaiters.add(wake);
    });
  }
}

// Fair scheduling of jobs across callers (the worker pool of worker-pool.ts, the SQL tool's query
// processes): each caller has its own first-in-first-out queue, the callers take turns (round-robin: after a caller's job starts, that caller goes to the back of
// the turn), and no caller has more than `perCaller` jobs running at once. So one caller's
// backlog of slow jobs delays another caller's job by at most one turn, and while the first
// caller is at its limit the others take the free workers.

export class FairQueue<T> {
  private readonly perCaller: number;
  /** Waiting jobs per caller; a caller with none is not in the map. */
  private readonly waiting = new Map<string, T[]>();
  /** Callers with waiting jobs, in turn order (the first is next). */
  private turns: string[] = [];
  private readonly running = new Map<string, number>();

  constructor(perCaller: number) {
    if (!Number.isInteger(perCaller) || perCaller < 1) {
      throw new Error(`the per-caller limit must be a whole number ≥ 1, not ${perCaller}`);
    }
    this.perCaller = perCaller;
  }

  /** Jobs waiting, all callers together. */
  get size(): number {
    let n = 0;
    for (const jobs of this.waiting.values()) n += jobs.length;
    return n;
  }

  /** Waiting jobs that could start now, each caller's counted up to its room under the limit. */
  startable(): number {
    let n = 0;
    for (const [caller, jobs] of this.waiting) {
      n += Math.min(jobs.length, Math.max(0, this.perCaller - this.runningOf(caller)));
    }
    return n;
  }

  /** Jobs of `caller` running now. */
  runningOf(caller: string): number {
    return this.running.get(caller) ?? 0;
  }

  push(caller: string, job: T): void {
    const jobs = this.waiting.get(caller);
    if (jobs !== undefined) {
      jobs.push(job);
      return;
    }
    this.waiting.set(caller, [job]);
    this.turns.push(caller);
  }

  /** Takes a waiting job out of the queue (it was cancelled); false if it was not waiting. */
  remove(caller: string, job: T): boolean {
    const jobs = this.waiting.get(caller);
    const index = jobs?.indexOf(job) ?? -1;
    if (jobs === undefined || index === -1) return false;
    jobs.splice(index, 1);
    if (jobs.length === 0) this.forget(caller);
    return true;
  }

  /**
   * The next job to start, from the first caller in turn below its limit, counted as running until
   * `finished(caller)`; undefined when every caller with waiting jobs is at its limit (or none waits).
   */
  take(): { caller: string; job: T } | undefined {
    const caller = this.turns.find((c) => this.runningOf(c) < this.perCaller);
    if (caller === undefined) return undefined;
    const jobs = this.waiting.get(caller)!;
    const job = jobs.shift()!;
    this.running.set(caller, this.runningOf(caller) + 1);
    this.turns = this.turns.filter((c) => c !== caller);
    if (jobs.length === 0) this.waiting.delete(caller);
    else this.turns.push(caller);
    return { caller, job };
  }

  /** A job of `caller` that `take` gave out has ended. */
  finished(caller: string): void {
    const n = this.runningOf(caller) - 1;
    if (n > 0) this.running.set(caller, n);
    else this.running.delete(caller);
  }

  private forget(caller: string): void {
    this.waiting.delete(caller);
    this.turns = this.turns.filter((c) => c !== caller);
  }
}

// An unbounded push/pull queue consumed with `for await`: producers push as work completes, one
// consumer iterates in completion order. `end()` finishes the iteration; `fail(err)` makes it throw.
export class AsyncQueue<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  #waiter: (() => void) | undefined;
  #ended = false;
  #error: Error | undefined;

  push(item: T): void {
    if (this.#ended) return;
    this.#items.push(item);
    this.#wake();
  }

  end(): void {
    this.#ended = true;
    this.#wake();
  }

  fail(error: Error): void {
    this.#error ??= error;
    this.end();
  }

  #wake(): void {
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      if (this.#error) throw this.#error;
      const item = this.#items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (this.#ended) return;
      await new Promise<void>((resolve) => {
        this.#waiter = resolve;
      });
    }
  }
}

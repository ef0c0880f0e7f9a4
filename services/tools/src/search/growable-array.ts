// An append-only typed array that grows geometrically (index building without JS arrays of numbers).

type TypedArrayCtor = Uint32ArrayConstructor | Float64ArrayConstructor | Uint8ArrayConstructor;

export class GrowableArray<T extends Uint32Array | Float64Array | Uint8Array> {
  private array: T;
  private readonly ctor: TypedArrayCtor;
  length = 0;

  constructor(ctor: TypedArrayCtor, initialCapacity = 1024) {
    this.ctor = ctor;
    this.array = new ctor(initialCapacity) as T;
  }

  push(value: number): void {
    if (this.length === this.array.length) {
      const bigger = new this.ctor(Math.ceil(this.array.length * 1.5) + 16) as T;
      bigger.set(this.array);
      this.array = bigger;
    }
    this.array[this.length++] = value;
  }

  /** Adds `delta` to the value at `index` (which must be < length). */
  add(index: number, delta: number): void {
    this.array[index] = (this.array[index] as number) + delta;
  }

  /** The values, trimmed to `length` (a copy; the builder drops itself afterwards). */
  toArray(): T {
    return this.array.slice(0, this.length) as T;
  }

  /** A view of the values without copying (valid until the next push). */
  view(): T {
    return this.array.subarray(0, this.length) as T;
  }
}

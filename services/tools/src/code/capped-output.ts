// One output stream of a run, kept up to a byte cap; what comes after the cap is dropped and noted.

export class CappedOutput {
  private readonly cap: number;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  /** More than `cap` bytes arrived. */
  exceeded = false;

  constructor(cap: number) {
    this.cap = cap;
  }

  /** Keeps what fits; returns false once the stream has gone over the cap. */
  push(chunk: Buffer): boolean {
    const room = this.cap - this.size;
    if (chunk.length > room) {
      this.exceeded = true;
      if (room > 0) this.chunks.push(chunk.subarray(0, room));
      this.size = this.cap;
      return false;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    return true;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

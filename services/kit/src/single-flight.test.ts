import { describe, expect, it } from "vitest";
import { SingleFlight } from "./single-flight.ts";

const later = <T>(ms: number, v: T) => new Promise<T>((r) => setTimeout(() => r(v), ms));

describe("SingleFlight", () => {
  it("runs concurrent identical keys once and shares the value", async () => {
    const sf = new SingleFlight<number>();
    let runs = 0;
    const fn = async () => {
      runs++;
      return later(20, 42);
    };
    const never = new AbortController().signal;
    const results = await Promise.all(Array.from({ length: 10 }, () => sf.run("k", never, fn)));
    expect(runs).toBe(1);
    expect(results.map((r) => r.value)).toEqual(Array(10).fill(42));
    expect(results.filter((r) => !r.joined)).toHaveLength(1);
    expect(sf.size).toBe(0);
  });

  it("one waiter leaving does not cancel the shared run for the others", async () => {
    const sf = new SingleFlight<string>();
    let aborted = false;
    const fn = async (signal: AbortSignal) => {
      signal.addEventListener("abort", () => {
        aborted = true;
      });
      return later(50, "done");
    };
    const leaving = new AbortController();
    const first = sf.run("k", leaving.signal, fn);
    const second = sf.run("k", new AbortController().signal, fn);
    leaving.abort(new Error("caller gone"));
    await expect(first).rejects.toThrow("caller gone");
    await expect(second).resolves.toMatchObject({ value: "done", joined: true });
    expect(aborted).toBe(false);
  });

  it("aborts the shared run with the last waiter's reason when everyone leaves", async () => {
    const sf = new SingleFlight<string>();
    let reason: unknown;
    const fn = (signal: AbortSignal) =>
      new Promise<string>((_, reject) =>
        signal.addEventListener("abort", () => {
          reason = signal.reason;
          reject(signal.reason);
        }),
      );
    const a = new AbortController();
    const b = new AbortController();
    const pa = sf.run("k", a.signal, fn);
    const pb = sf.run("k", b.signal, fn);
    a.abort(new Error("a"));
    b.abort(new Error("b"));
    await expect(pa).rejects.toThrow("a");
    await expect(pb).rejects.toThrow("b");
    expect((reason as Error).message).toBe("b");
    // A later caller starts a fresh run.
    const fresh = await sf.run("k", new AbortController().signal, async () => "again");
    expect(fresh).toEqual({ value: "again", joined: false });
  });
});

import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { TrajectorySignals } from "./trajectory-signals.ts";

describe("TrajectorySignals", () => {
  it("aborts the open trajectories with the request's reason, not the closed ones", () => {
    const request = new AbortController();
    const signals = new TrajectorySignals(request.signal);
    const open = Array.from({ length: 5 }, () => signals.open());
    open[1]!.close();
    open[3]!.close();
    const reason = new Error("stop");
    request.abort(reason);
    expect(open.map((t) => t.signal.aborted)).toEqual([true, false, true, false, true]);
    expect(open[0]!.signal.reason).toBe(reason);
    const late = signals.open();
    expect(late.signal.aborted).toBe(true);
    expect(late.signal.reason).toBe(reason);
  });

  it("keeps one listener on the request's signal however many trajectories listen on theirs", () => {
    const request = new AbortController();
    const signals = new TrajectorySignals(request.signal);
    const open = Array.from({ length: 1000 }, () => signals.open());
    for (const t of open) t.signal.addEventListener("abort", () => {});
    expect(getEventListeners(request.signal, "abort")).toHaveLength(1);
    expect(getEventListeners(open[0]!.signal, "abort")).toHaveLength(1);
  });
});

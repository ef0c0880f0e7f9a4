import type { Trajectory } from "@rlfactory/contracts";
import { describe, expect, it } from "vitest";
import { allFailed } from "./rollout-command.ts";

const t = (status: Trajectory["status"], reason: string | null) =>
  ({ status, status_reason: reason }) as Trajectory;

describe("allFailed", () => {
  it("is null unless every trajectory failed", () => {
    expect(allFailed([])).toBeNull();
    expect(allFailed([t("failed", "x"), t("completed", null)])).toBeNull();
    expect(allFailed([t("failed", "x"), t("aborted", "cancelled")])).toBeNull();
  });

  it("names the most common failure; reasons differing only in numbers count as one", () => {
    const tooLong = (n: number) => `inference HTTP_ERROR: answered 400: you requested ${n} tokens`;
    expect(
      allFailed([t("failed", tooLong(440)), t("failed", "gateway UNAVAILABLE"), t("failed", tooLong(512))]),
    ).toEqual({ reason: tooLong(440), count: 2 });
    expect(allFailed([t("failed", null)])).toEqual({ reason: "no reason given", count: 1 });
  });
});

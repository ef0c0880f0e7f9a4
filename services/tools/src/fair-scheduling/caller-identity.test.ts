// Who a call's caller is, for the fair queue.
import { describe, expect, it } from "vitest";
import { CALLER_META_KEY, callerOf, SHARED_CALLER } from "./caller-identity.ts";

const signal = new AbortController().signal;

describe("callerOf", () => {
  it("takes the caller named in _meta first, then the session, then the shared caller", () => {
    expect(callerOf({ signal, meta: { [CALLER_META_KEY]: "trajectory-7" }, sessionId: "s1" })).toBe(
      "meta:trajectory-7",
    );
    expect(callerOf({ signal, sessionId: "s1" })).toBe("session:s1");
    expect(callerOf({ signal, meta: { [CALLER_META_KEY]: 7 } })).toBe(SHARED_CALLER);
    expect(callerOf({ signal, meta: { [CALLER_META_KEY]: "" } })).toBe(SHARED_CALLER);
    expect(callerOf({ signal })).toBe(SHARED_CALLER);
  });
});

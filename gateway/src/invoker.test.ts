// The policy stack against an in-memory upstream: deterministic, no processes.
import { EventEmitter } from "node:events";
import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import { INVALID_SPAN_CONTEXT, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { createMemoryStore } from "@rlfactory/kit";
import { CALLER_META_KEY, UNAVAILABLE_META_KEY } from "@rlfactory/proto";
import { pino } from "pino";
import { describe, expect, it, vi } from "vitest";
import { ResultCache } from "./cache.ts";
import { Catalog } from "./catalog.ts";
import { normaliseConfig } from "./config.ts";
import { GatewayError } from "./errors.ts";
import { type CallRequest, Invoker } from "./invoker.ts";
import { UpstreamPolicies } from "./policies.ts";
import type { Upstream, UpstreamCallOptions, UpstreamState } from "./upstream.ts";

type Handler = (args: Record<string, unknown>, opts: UpstreamCallOptions) => Promise<CallToolResult>;

class FakeUpstream extends EventEmitter implements Upstream {
  state: UpstreamState = "ready";
  detail = "";
  calls = 0;
  readonly name: string;
  readonly toolList: Tool[];
  handler: Handler;
  constructor(name: string, toolList: Tool[], handler: Handler) {
    super();
    this.name = name;
    this.toolList = toolList;
    this.handler = handler;
  }
  tools() {
    return this.toolList;
  }
  async callTool(_name: string, args: Record<string, unknown>, opts: UpstreamCallOptions) {
    this.calls++;
    return this.handler(args, opts);
  }
  async start() {}
  async close() {}
}

const text = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }] });
const schema: Tool["inputSchema"] = {
  type: "object",
  properties: { q: { type: "string" } },
  required: ["q"],
  additionalProperties: false,
};
const unavailable = () => new GatewayError("UNAVAILABLE", "connection closed");

function setup(
  handler: Handler,
  policy: Record<string, unknown> = {},
  annotations: Tool["annotations"] = {},
) {
  const config = normaliseConfig({
    servers: {
      s: {
        command: "unused",
        policy: {
          breaker: { consecutive_failures: 3, half_open_after_ms: 100 },
          retry: { initial_delay_ms: 1, max_delay_ms: 5 },
          ...policy,
        },
      },
    },
  });
  const server = config.servers[0]!;
  const upstream = new FakeUpstream("s", [{ name: "t", inputSchema: schema, annotations }], handler);
  const log = pino({ level: "silent" });
  const catalog = new Catalog(config.servers, log);
  catalog.track(upstream);
  const policies = new Map([["s", new UpstreamPolicies(server.upstream)]]);
  const invoker = new Invoker(
    catalog,
    new ResultCache(createMemoryStore({ maxEntries: 100, maxBytes: 1e6 })),
    policies,
  );
  const call = (over: Partial<CallRequest> = {}) =>
    invoker.call(
      {
        name: "s__t",
        argumentsJson: '{"q":"x"}',
        deadlineMs: 0,
        trajectoryId: "",
        bypassCache: false,
        callId: "",
        ...over,
      },
      ROOT_CONTEXT,
      trace.wrapSpanContext(INVALID_SPAN_CONTEXT),
    );
  return { upstream, invoker, call, breaker: () => policies.get("s")!.breakerState };
}

describe("Invoker: argument checks", () => {
  const { call, upstream } = setup(async () => text("ok"));

  it("rejects an unknown tool, naming it", async () => {
    const o = await call({ name: "s__nope" });
    expect(o.error?.code).toBe("UNKNOWN_TOOL");
    expect(o.error?.message).toContain('"s__nope"');
  });
  it("rejects non-JSON arguments", async () => {
    const o = await call({ argumentsJson: "{q: x" });
    expect(o.error?.code).toBe("INVALID_ARGUMENTS");
    expect(o.error?.message).toMatch(/not valid JSON/);
  });
  it("rejects arguments that are not an object", async () => {
    expect((await call({ argumentsJson: "[1]" })).error?.code).toBe("INVALID_ARGUMENTS");
  });
  it("rejects arguments failing the input schema, saying which field", async () => {
    const o = await call({ argumentsJson: '{"q": 3}' });
    expect(o.error?.code).toBe("INVALID_ARGUMENTS");
    expect(o.error?.message).toContain("arguments/q must be string");
  });
  it("rejects oversized arguments before parsing them", async () => {
    const o = await call({ argumentsJson: JSON.stringify({ q: "x".repeat(2 * 1024 * 1024) }) });
    expect(o.error?.code).toBe("ARGUMENTS_TOO_LARGE");
    expect(o.error?.message).toMatch(/limit is 1048576/);
  });
  it("never reached the upstream for any of them", () => {
    expect(upstream.calls).toBe(0);
  });
});

describe("Invoker: tool errors vs call failures", () => {
  it("passes isError results through and never trips the breaker", async () => {
    const { call, breaker } = setup(async () => ({ ...text("no such city"), isError: true }));
    for (let i = 0; i < 10; i++) {
      const o = await call();
      expect(o.error).toBeUndefined();
      expect(o.output?.isError).toBe(true);
    }
    expect(breaker()).toBe("closed");
  });

  it("opens the breaker after consecutive upstream failures, then half-opens and closes", async () => {
    let healthy = false;
    const { call, breaker, upstream } = setup(async () => {
      if (!healthy) throw unavailable();
      return text("ok");
    });
    // The breaker reads Date.now(): move that clock past halfOpenAfterMs (100) instead of waiting.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      for (let i = 0; i < 3; i++) expect((await call()).error?.code).toBe("UNAVAILABLE");
      expect(breaker()).toBe("open");
      const before = upstream.calls;
      const rejected = await call();
      expect(rejected.error?.code).toBe("CIRCUIT_OPEN");
      expect(upstream.calls).toBe(before);
      healthy = true;
      vi.setSystemTime(Date.now() + 99);
      expect((await call()).error?.code).toBe("CIRCUIT_OPEN");
      vi.setSystemTime(Date.now() + 2);
      expect((await call()).error).toBeUndefined();
      expect(breaker()).toBe("closed");
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("Invoker: the breaker counts only the server's faults", () => {
  /** Healthy but slow: answers after `ms`; on abort rejects with the signal's reason, as a cancel does. */
  const slow =
    (ms: number): Handler =>
    (_args, opts) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve(text("ok")), ms);
        opts.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(opts.signal.reason);
        });
      });

  // A call answers the caller at its deadline; the aborted attempt reaches the breaker a few microtasks
  // later. Let those run before reading the breaker.
  const settled = () => new Promise((r) => setImmediate(r));

  it("100 calls with a 1 ms caller deadline leave it closed; the next ordinary call succeeds", async () => {
    const { call, breaker, upstream } = setup(slow(50));
    const codes = new Map<string, number>();
    for (let i = 0; i < 100; i++) {
      const code = (await call({ deadlineMs: 1 })).error?.code ?? "OK";
      codes.set(code, (codes.get(code) ?? 0) + 1);
    }
    expect(Object.fromEntries(codes)).toEqual({ TIMEOUT: 100 });
    expect(upstream.calls).toBe(100);
    await settled();
    expect(breaker()).toBe("closed");
    const ordinary = await call();
    expect(ordinary.error).toBeUndefined();
    expect(ordinary.output?.content[0]?.text?.text).toBe("ok");
    expect(breaker()).toBe("closed");
  });

  it("calls the caller ends (cancel, its gRPC deadline passing, a short rpc deadline) never count", async () => {
    const { call, breaker, upstream } = setup(slow(60_000));
    const endedBy = async (reason: unknown) => {
      const caller = new AbortController();
      const before = upstream.calls;
      const pending = call({ signal: caller.signal });
      // Abort only once the call has reached the server.
      await vi.waitFor(() => expect(upstream.calls).toBe(before + 1));
      caller.abort(reason);
      return (await pending).error?.code;
    };
    for (let i = 0; i < 5; i++) {
      expect(await endedBy(new Error("the client cancelled the call"))).toBe("CANCELLED");
      expect(await endedBy(new DOMException("the call's deadline passed", "TimeoutError"))).toBe("TIMEOUT");
      expect((await call({ rpcRemainingMs: 1 })).error?.code).toBe("TIMEOUT");
    }
    expect(upstream.calls).toBe(15);
    await settled();
    expect(breaker()).toBe("closed");
  });

  it("a server timing out against its configured deadline consecutive_failures times still opens it", async () => {
    const { call, breaker, upstream } = setup(slow(60_000), { deadline_ms: 20 });
    // A caller's own short deadline in between neither counts nor resets the count.
    expect((await call()).error?.code).toBe("TIMEOUT");
    expect((await call({ deadlineMs: 1 })).error?.code).toBe("TIMEOUT");
    expect((await call()).error?.code).toBe("TIMEOUT");
    await settled();
    expect(breaker()).toBe("closed");
    // A caller asking for more than the configured deadline: the server overran it too.
    expect((await call({ deadlineMs: 40 })).error?.code).toBe("TIMEOUT");
    await settled();
    expect(breaker()).toBe("open");
    const before = upstream.calls;
    expect((await call()).error?.code).toBe("CIRCUIT_OPEN");
    expect(upstream.calls).toBe(before);
  });
});

describe("Invoker: retry", () => {
  it("retries an idempotent tool on UNAVAILABLE", async () => {
    let n = 0;
    const { call } = setup(
      async () => {
        if (n++ === 0) throw unavailable();
        return text("ok");
      },
      {},
      { idempotentHint: true },
    );
    const o = await call();
    expect(o.error).toBeUndefined();
    expect(o.attempts).toBe(2);
  });

  it("does not retry a tool that is not idempotent", async () => {
    const { call, upstream } = setup(async () => {
      throw unavailable();
    });
    const o = await call();
    expect(o.error?.code).toBe("UNAVAILABLE");
    expect(o.attempts).toBe(1);
    expect(upstream.calls).toBe(1);
  });

  it("config wins over annotations", async () => {
    const { call, upstream } = setup(
      async () => {
        throw unavailable();
      },
      { idempotent: false },
      { idempotentHint: true },
    );
    await call();
    expect(upstream.calls).toBe(1);
  });

  it("gives up at retry.max_attempts", async () => {
    const { call, upstream } = setup(
      async () => {
        throw unavailable();
      },
      {
        retry: { max_attempts: 2, initial_delay_ms: 1, max_delay_ms: 1 },
        breaker: { consecutive_failures: 100 },
      },
      { idempotentHint: true },
    );
    const o = await call();
    expect(o.attempts).toBe(2);
    expect(upstream.calls).toBe(2);
  });
});

describe("Invoker: deadline, bulkhead, output cap", () => {
  it("times out at the deadline and aborts the upstream call", async () => {
    let upstreamSignal: AbortSignal | undefined;
    const { call } = setup(
      (_args, opts) =>
        new Promise((_, reject) => {
          upstreamSignal = opts.signal;
          opts.signal.addEventListener("abort", () => reject(opts.signal.reason));
        }),
    );
    const o = await call({ deadlineMs: 30 });
    expect(o.error?.code).toBe("TIMEOUT");
    expect(o.error?.message).toMatch(/30 ms deadline/);
    expect(upstreamSignal?.aborted).toBe(true);
  });

  it("the caller leaving is CANCELLED; the caller's own deadline passing (callerGone) is a TIMEOUT", async () => {
    const { call } = setup(
      (_a, opts) =>
        new Promise((_, rej) => opts.signal.addEventListener("abort", () => rej(opts.signal.reason))),
    );
    const outcomeWhenCaller = async (reason: unknown) => {
      const caller = new AbortController();
      const pending = call({ deadlineMs: 60_000, signal: caller.signal });
      caller.abort(reason);
      return (await pending).error;
    };
    expect(await outcomeWhenCaller(new Error("the client cancelled the call"))).toMatchObject({
      code: "CANCELLED",
    });
    const late = await outcomeWhenCaller(new DOMException("the call's deadline passed", "TimeoutError"));
    expect(late?.code).toBe("TIMEOUT");
    expect(late?.message).toMatch(/60000 ms deadline/);
  });

  it("caps the deadline at max_deadline_ms", async () => {
    const { call } = setup(
      (_a, opts) =>
        new Promise((_, rej) => opts.signal.addEventListener("abort", () => rej(opts.signal.reason))),
      {
        max_deadline_ms: 20,
      },
    );
    const o = await call({ deadlineMs: 60_000 });
    expect(o.error?.code).toBe("TIMEOUT");
    expect(o.latencyMs).toBeLessThan(5_000);
  });

  it("rejects with RATE_LIMITED when the bulkhead and its queue are full", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const { call } = setup(
      async () => {
        await gate;
        return text("ok");
      },
      { bulkhead: { max_concurrent: 1, max_queue: 1 } },
    );
    const first = call();
    const queued = call();
    const third = await call();
    expect(third.error?.code).toBe("RATE_LIMITED");
    release();
    expect((await first).error).toBeUndefined();
    expect((await queued).error).toBeUndefined();
  });

  it("cuts long text at the output cap with a visible marker", async () => {
    const { call } = setup(async () => text("y".repeat(5_000)), { max_output_bytes: 1_000 });
    const o = await call();
    expect(o.output?.truncated).toBe(true);
    const t = o.output?.content[0]?.text?.text ?? "";
    expect(t.startsWith("y".repeat(1_000))).toBe(true);
    expect(t).toContain("[output truncated by the rlfactory gateway: 1000 of 5000 bytes shown]");
  });

  it("fails with OUTPUT_TOO_LARGE when non-text content exceeds the cap", async () => {
    const { call } = setup(
      async () => ({
        content: [{ type: "image", data: Buffer.alloc(4_000).toString("base64"), mimeType: "image/png" }],
      }),
      { max_output_bytes: 1_000 },
    );
    expect((await call()).error?.code).toBe("OUTPUT_TOO_LARGE");
  });
});

describe("Invoker: cache and single-flight", () => {
  const slowEcho: Handler = async (args) => {
    await new Promise((r) => setTimeout(r, 30));
    return { ...text(`echo ${String(args.q)}`), structuredContent: { q: args.q } };
  };

  it("coalesces concurrent identical calls into one execution, then serves hits", async () => {
    const { call, upstream } = setup(slowEcho, { cache: true });
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => call()));
    expect(upstream.calls).toBe(1);
    expect(outcomes.every((o) => o.output?.content[0]?.text?.text === "echo x")).toBe(true);
    expect(outcomes.filter((o) => o.coalesced)).toHaveLength(19);
    const next = await call({ argumentsJson: '{ "q" : "x" }' });
    expect(next.cacheHit).toBe(true);
    expect(next.attempts).toBe(0);
    expect(upstream.calls).toBe(1);
  });

  it("bypass skips the cache; other arguments miss", async () => {
    const { call, upstream } = setup(slowEcho, { cache: true });
    await call();
    expect((await call({ bypassCache: true })).cacheHit).toBe(false);
    expect((await call({ argumentsJson: '{"q":"y"}' })).cacheHit).toBe(false);
    expect(upstream.calls).toBe(3);
  });

  it("does not cache tool errors", async () => {
    const { call, upstream } = setup(async () => ({ ...text("bad"), isError: true }), { cache: true });
    await call();
    await call();
    expect(upstream.calls).toBe(2);
  });

  it("does not cache tools that are not opted in", async () => {
    const { call, upstream } = setup(slowEcho, {}, { readOnlyHint: true, idempotentHint: true });
    await call();
    await call();
    expect(upstream.calls).toBe(2);
  });

  it('cache: "auto" follows readOnly + idempotent annotations', async () => {
    const { call, upstream } = setup(
      slowEcho,
      { cache: "auto" },
      { readOnlyHint: true, idempotentHint: true },
    );
    await call();
    expect((await call()).cacheHit).toBe(true);
    expect(upstream.calls).toBe(1);
  });

  it("a caller timing out does not fail the others sharing its execution", async () => {
    // The shared execution finishes only after the impatient caller has timed out.
    let finish!: () => void;
    const finished = new Promise<void>((r) => {
      finish = r;
    });
    const { call, upstream } = setup(
      async (args, opts) => {
        await finished;
        opts.signal.throwIfAborted();
        return text(String(args.q));
      },
      { cache: true },
    );
    const impatient = call({ deadlineMs: 20 });
    const patient = call({ deadlineMs: 5_000 });
    expect((await impatient).error?.code).toBe("TIMEOUT");
    finish();
    const p = await patient;
    expect(p.error).toBeUndefined();
    expect(p.output?.content[0]?.text?.text).toBe("x");
    expect(upstream.calls).toBe(1);
  });
});

describe("Invoker: a tool its server lists as unavailable here", () => {
  const reason = "the code sandbox needs bubblewrap (no bwrap on PATH): install it and restart";
  const config = normaliseConfig({ servers: { s: { command: "unused" } } });
  const upstream = new FakeUpstream(
    "s",
    [{ name: "t", inputSchema: schema, _meta: { [UNAVAILABLE_META_KEY]: reason } }],
    async () => text("ran"),
  );
  const catalog = new Catalog(config.servers, pino({ level: "silent" }));
  catalog.track(upstream);
  const policies = new Map([["s", new UpstreamPolicies(config.servers[0]!.upstream)]]);
  const invoker = new Invoker(
    catalog,
    new ResultCache(createMemoryStore({ maxEntries: 10, maxBytes: 1e6 })),
    policies,
  );
  const call = () =>
    invoker.call(
      {
        name: "s__t",
        argumentsJson: '{"q":"x"}',
        deadlineMs: 0,
        trajectoryId: "",
        bypassCache: false,
        callId: "",
      },
      ROOT_CONTEXT,
      trace.wrapSpanContext(INVALID_SPAN_CONTEXT),
    );

  it("is listed with the reason, and every call answers UNAVAILABLE with it, never reaching the server", async () => {
    expect(catalog.get("s__t")?.unavailable).toBe(reason);
    const outcomes = [];
    for (let i = 0; i < 10; i++) outcomes.push(await call());
    expect(outcomes.map((o) => [o.error?.code, o.error?.message, o.server])).toEqual(
      Array(10).fill(["UNAVAILABLE", `s__t: ${reason}`, "s"]),
    );
    expect(upstream.calls).toBe(0);
    expect(policies.get("s")!.breakerState).toBe("closed");
  });
});

describe("Invoker: the caller travels to the server", () => {
  it("sends the trajectory id as _meta rlfactory/caller, and no caller key without one", async () => {
    const seen: Array<Record<string, unknown> | undefined> = [];
    const { call } = setup(async (_args, opts) => {
      seen.push(opts.meta);
      return text("ok");
    });
    await call({ trajectoryId: "traj-7" });
    await call({ trajectoryId: "" });
    expect(seen[0]?.[CALLER_META_KEY]).toBe("traj-7");
    expect(seen[1]).toBeDefined();
    expect(seen[1]).not.toHaveProperty(CALLER_META_KEY);
  });
});

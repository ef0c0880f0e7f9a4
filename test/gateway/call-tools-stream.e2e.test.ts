// CallToolsStream end to end: GatewayClient's callTools over one long-lived stream to a real gateway
// with real MCP servers (the testbed and the kv environment, stdio child processes). Batches answer
// out of order, each exactly what unary CallTools answers; a failed batch fails alone; cancel reaches
// the tool server; a dead gateway rejects every batch in flight and a new one on the same port serves
// the next; a gateway without the method (UNIMPLEMENTED) gets unary CallTools.
import { join } from "node:path";
import {
  Metadata,
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type StatusObject,
  type sendUnaryData,
  status,
} from "@grpc/grpc-js";
import { GatewayClient } from "@rlfactory/clients";
import { ToolGateway } from "@rlfactory/proto/codec/gateway-services";
import { staticServiceDefinition } from "@rlfactory/proto/static-client";
import type { CallToolsRequest__Output } from "@rlfactory/proto/types/CallToolsRequest";
import type { CallToolsStreamResponse__Output } from "@rlfactory/proto/types/CallToolsStreamResponse";
import type { ToolCall } from "@rlfactory/proto/types/ToolCall";
import type { ToolResult__Output } from "@rlfactory/proto/types/ToolResult";
import {
  freePort,
  type InProcessGateway,
  ROOT,
  spawnGateway,
  startTestGateway,
  tempDir,
  testbedStdio,
  waitFor,
} from "@rlfactory/test-support/gateway-harness";
import { readTestbedEvents } from "@rlfactory/test-support/testbed-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const KEY = "stream-key-0123456789";
const MAX_BATCH = 4;
const eventsFile = join(tempDir("rlf-stream-"), "events.jsonl");

let gw: InProcessGateway;
let unary: GatewayClient;
beforeAll(async () => {
  gw = await startTestGateway(
    {
      auth: { api_keys: [KEY] },
      max_batch_size: MAX_BATCH,
      servers: {
        testbed: testbedStdio(eventsFile),
        kv: {
          command: process.execPath,
          args: [join(ROOT, "test/support/src/kv-environment.ts"), "--stdio"],
        },
      },
    },
    { apiKey: KEY },
  );
  unary = new GatewayClient(gw.gateway.grpcAddress, { apiKey: KEY, callToolsStream: false });
}, 60_000);
afterAll(async () => {
  unary?.close();
  await gw?.stop();
});

const call = (name: string, args: unknown, extra: Partial<ToolCall> = {}): ToolCall => ({
  name,
  arguments_json: typeof args === "string" ? args : JSON.stringify(args),
  ...extra,
});
/** A result as callers compare it: without its wall time. */
const comparable = ({ latency_ms: _latency, ...rest }: ToolResult__Output) => rest;

describe("CallToolsStream through GatewayClient.callTools", () => {
  it("answers batches out of order: a fast batch is answered while an earlier one still waits", async () => {
    // Batch `slow` can only finish once a later batch (`release`) joins its rendezvous, and `release`
    // is sent only after `fast` was answered: a stream answering in order would never answer `fast`.
    const group = `ooo-${Date.now()}`;
    const order: string[] = [];
    const rendezvous = call("testbed__rendezvous", { group, parties: 2, timeout_ms: 20_000 });
    const slow = gw.client.callTools({ calls: [rendezvous] }).then((r) => {
      order.push("slow");
      return r;
    });
    const fast = await gw.client.callTools({ calls: [call("testbed__echo", { value: "quick" })] });
    order.push("fast");
    expect(JSON.parse(fast[0]!.structured_content_json)).toEqual({ value: "quick" });
    const release = await gw.client.callTools({ calls: [rendezvous] });
    order.push("release");
    const slowResults = await slow;
    expect(order[0]).toBe("fast");
    expect([...slowResults, ...release].map((r) => JSON.parse(r.structured_content_json))).toEqual([
      { met: 2 },
      { met: 2 },
    ]);
  });

  it("answers exactly what unary CallTools answers: per-call errors, images, episode calls in order", async () => {
    const [onStream, onUnary] = [await gw.client.startEpisode("kv"), await unary.startEpisode("kv")];
    const batch = () => ({
      calls: [
        call("testbed__sleep", { ms: 1 }, { call_id: "a" }),
        call("testbed__missing", {}, { call_id: "b" }),
        call("testbed__fail", { message: "no such row" }, { call_id: "c" }),
        call("testbed__image", {}, { call_id: "d" }),
      ],
    });
    const episodeBatch = (episode: string) => ({
      calls: [
        call("kv__append", { key: "log", value: "a", delay_ms: 30 }, { episode_id: episode }),
        call("kv__append", { key: "log", value: "b" }, { episode_id: episode }),
        call("kv__put", "{not json", { episode_id: episode }),
        call("kv__get", { key: "log" }, { episode_id: episode }),
      ],
    });
    const viaStream = await gw.client.callTools(batch());
    const viaUnary = await unary.callTools(batch());
    expect(viaStream.map(comparable)).toEqual(viaUnary.map(comparable));
    expect(viaStream.map((r) => [r.call_id, r.error_code, r.is_error])).toEqual([
      ["a", "OK", false],
      ["b", "UNKNOWN_TOOL", false],
      ["c", "OK", true],
      ["d", "OK", false],
    ]);
    expect(viaStream[3]?.content[0]?.image?.mime_type).toBe("image/png");

    const episodeViaStream = await gw.client.callTools(episodeBatch(onStream));
    const episodeViaUnary = await unary.callTools(episodeBatch(onUnary));
    expect(episodeViaStream.map(comparable)).toEqual(episodeViaUnary.map(comparable));
    expect(episodeViaStream.map((r) => r.error_code)).toEqual(["OK", "OK", "INVALID_ARGUMENTS", "OK"]);
    expect(JSON.parse(episodeViaStream[3]!.structured_content_json)).toEqual({ value: "ab" });
  });

  it("fails an empty or oversized batch alone, with unary's status; the stream goes on", async () => {
    const ok = call("testbed__echo", { value: 1 });
    const [empty, oversize, fine] = await Promise.allSettled([
      gw.client.callTools({ calls: [] }),
      gw.client.callTools({ calls: Array.from({ length: MAX_BATCH + 1 }, () => ok) }),
      gw.client.callTools({ calls: [ok] }),
    ]);
    const [emptyUnary, oversizeUnary] = await Promise.allSettled([
      unary.callTools({ calls: [] }),
      unary.callTools({ calls: Array.from({ length: MAX_BATCH + 1 }, () => ok) }),
    ]);
    const failure = (s: PromiseSettledResult<unknown>) =>
      s.status === "rejected" ? { code: s.reason.code, details: s.reason.details } : s;
    expect(failure(empty)).toEqual({
      code: status.INVALID_ARGUMENT,
      details: "CallTools needs at least one call",
    });
    expect(failure(oversize)).toEqual({
      code: status.RESOURCE_EXHAUSTED,
      details: `batch of ${MAX_BATCH + 1} calls; the limit is ${MAX_BATCH}`,
    });
    expect([failure(emptyUnary), failure(oversizeUnary)]).toEqual([failure(empty), failure(oversize)]);
    expect(fine.status === "fulfilled" && fine.value.map((r) => r.error_code)).toEqual(["OK"]);
    expect(await gw.client.callTools({ calls: [ok] })).toHaveLength(1);
  });

  it("rejects a batch with UNAUTHENTICATED when the API key is wrong", async () => {
    const wrong = new GatewayClient(gw.gateway.grpcAddress, { apiKey: "wrong-key-000000" });
    try {
      await expect(wrong.callTools({ calls: [call("testbed__pid", {})] })).rejects.toMatchObject({
        code: status.UNAUTHENTICATED,
        details: expect.stringMatching(/API key/),
      });
    } finally {
      wrong.close();
    }
  });

  it("cancels a batch: the caller gets CANCELLED, the tool server sees the cancellation, the stream goes on", async () => {
    const tag = `cancel-${Date.now()}`;
    const abort = new AbortController();
    const pending = gw.client.callTools(
      { calls: [call("testbed__sleep", { ms: 30_000, tag })] },
      {
        signal: abort.signal,
      },
    );
    await waitFor(
      () => readTestbedEvents(eventsFile).some((e) => e.event === "executed" && e.args.tag === tag),
      10_000,
      "the tool server to start the call",
    );
    abort.abort();
    await expect(pending).rejects.toMatchObject({ code: status.CANCELLED });
    await waitFor(
      () => readTestbedEvents(eventsFile).some((e) => e.event === "cancelled" && e.args.tag === tag),
      10_000,
      "the tool server to record the cancellation",
    );
    const after = await gw.client.callTools({ calls: [call("testbed__echo", { value: "after" })] });
    expect(after.map((r) => r.error_code)).toEqual(["OK"]);
  });

  it("bounds each batch by rpcTimeoutMs: DEADLINE_EXCEEDED, the tool server sees the cancellation, the stream goes on", async () => {
    const tag = `rpc-timeout-${Date.now()}`;
    const bounded = new GatewayClient(gw.gateway.grpcAddress, { apiKey: KEY, rpcTimeoutMs: 300 });
    try {
      await expect(
        bounded.callTools({ calls: [call("testbed__sleep", { ms: 30_000, tag })] }),
      ).rejects.toMatchObject({ code: status.DEADLINE_EXCEEDED });
      await waitFor(
        () => readTestbedEvents(eventsFile).some((e) => e.event === "cancelled" && e.args.tag === tag),
        10_000,
        "the tool server to record the cancellation",
      );
      const after = await bounded.callTools({ calls: [call("testbed__echo", { value: "after" })] });
      expect(after.map((r) => r.error_code)).toEqual(["OK"]);
    } finally {
      bounded.close();
    }
  });
});

describe("CallToolsStream on the wire (the raw duplex)", () => {
  it("answers each batch once by batch_id, none for a cancelled one; after half-close it answers the running batches, then ends OK", async () => {
    const md = new Metadata();
    md.set("authorization", `Bearer ${KEY}`);
    const stream = gw.client.raw.CallToolsStream(md);
    const answers: CallToolsStreamResponse__Output[] = [];
    const ended = new Promise<StatusObject>((resolve) => stream.on("status", resolve));
    stream.on("error", () => {});
    const answered = (id: string) =>
      waitFor(() => answers.some((a) => a.batch_id === id), 10_000, `batch ${id} answered`);
    stream.on("data", (a: CallToolsStreamResponse__Output) => answers.push(a));

    const group = `wire-${Date.now()}`;
    const tag = `wire-cancel-${Date.now()}`;
    const rendezvous = call("testbed__rendezvous", { group, parties: 2, timeout_ms: 20_000 });
    stream.write({ batch_id: 1, batch: { calls: [rendezvous] } });
    stream.write({ batch_id: 2, batch: { calls: [call("testbed__echo", { value: 2 })] } });
    stream.write({ batch_id: 3, batch: { calls: [call("testbed__sleep", { ms: 30_000, tag })] } });
    stream.write({ batch_id: 4, batch: { calls: [] } });
    await answered("2");
    await waitFor(
      () => readTestbedEvents(eventsFile).some((e) => e.event === "executed" && e.args.tag === tag),
      10_000,
      "the sleep to start upstream",
    );
    stream.write({ batch_id: 3, cancel: true });
    await waitFor(
      () => readTestbedEvents(eventsFile).some((e) => e.event === "cancelled" && e.args.tag === tag),
      10_000,
      "the tool server to record the cancellation",
    );
    stream.write({ batch_id: 5, batch: { calls: [rendezvous] } });
    stream.end(); // batches 1 and 5 are still running: both are answered before the stream ends
    expect((await ended).code).toBe(status.OK);
    // 2 and 4 (the failed batch) before 1, whose rendezvous needed 5, sent once 2 was answered; no 3
    const ids = answers.map((a) => a.batch_id);
    expect([ids.slice(0, 2).sort(), ids.slice(2).sort()]).toEqual([
      ["2", "4"],
      ["1", "5"],
    ]);
    const byId = new Map(answers.map((a) => [a.batch_id, a]));
    expect(byId.get("4")).toMatchObject({ status_code: status.INVALID_ARGUMENT, results: [] });
    for (const id of ["1", "5"]) {
      expect(byId.get(id)?.status_code).toBe(status.OK);
      expect(JSON.parse(byId.get(id)!.results[0]!.structured_content_json)).toEqual({ met: 2 });
    }
  });
});

describe("CallToolsStream when the gateway goes away", () => {
  it("rejects every batch in flight with UNAVAILABLE; a new gateway on the same port serves the next batch", async () => {
    const port = await freePort();
    const events = join(tempDir("rlf-stream-dead-"), "events.jsonl");
    const config = { grpc: { port }, servers: { testbed: testbedStdio(events) } };
    const first = await spawnGateway(config);
    const client = new GatewayClient(`127.0.0.1:${port}`);
    let second: Awaited<ReturnType<typeof spawnGateway>> | undefined;
    try {
      expect(await client.callTools({ calls: [call("testbed__echo", { value: 0 })] })).toHaveLength(1);
      const sleeping = (n: number) =>
        client.callTools({ calls: [call("testbed__sleep", { ms: 60_000, tag: `dead-${n}` })] });
      const inFlight = [sleeping(1), sleeping(2), sleeping(3)];
      await waitFor(
        () =>
          readTestbedEvents(events).filter((e) => e.event === "executed" && e.tool === "sleep").length === 3,
        10_000,
        "the three sleeps to run on the tool server",
      );
      first.process.kill("SIGKILL");
      const settled = await Promise.allSettled(inFlight);
      expect(settled.map((s) => (s.status === "rejected" ? s.reason.code : "answered"))).toEqual([
        status.UNAVAILABLE,
        status.UNAVAILABLE,
        status.UNAVAILABLE,
      ]);
      await first.stop();
      second = await spawnGateway(config);
      const next = await client.callTools({ calls: [call("testbed__echo", { value: "again" })] });
      expect(JSON.parse(next[0]!.structured_content_json)).toEqual({ value: "again" });
    } finally {
      client.close();
      await first.stop();
      await second?.stop();
    }
  }, 120_000);
});

describe("CallToolsStream when the gateway closes", () => {
  it("finishes and answers the running batches, then ends the stream OK (no wait for the grace period's force)", async () => {
    const events = join(tempDir("rlf-stream-close-"), "events.jsonl");
    const closing = await startTestGateway({ servers: { testbed: testbedStdio(events) } });
    const stream = closing.client.raw.CallToolsStream(new Metadata());
    const answers: CallToolsStreamResponse__Output[] = [];
    stream.on("data", (a: CallToolsStreamResponse__Output) => answers.push(a));
    stream.on("error", () => {});
    const ended = new Promise<StatusObject>((resolve) => stream.on("status", resolve));
    try {
      stream.write({ batch_id: 1, batch: { calls: [call("testbed__sleep", { ms: 200, tag: "closing" })] } });
      await waitFor(
        () => readTestbedEvents(events).some((e) => e.event === "executed" && e.args.tag === "closing"),
        10_000,
        "the sleep to start upstream",
      );
      const closed = closing.gateway.close();
      expect((await ended).code).toBe(status.OK);
      expect(answers.map((a) => [a.batch_id, a.status_code, a.results.map((r) => r.error_code)])).toEqual([
        ["1", status.OK, ["OK"]],
      ]);
      await closed;
    } finally {
      closing.client.close();
      await closing.gateway.close();
    }
  });
});

describe("CallToolsStream against an older gateway (no such method)", () => {
  it("falls back to unary CallTools for good after UNIMPLEMENTED", async () => {
    // A ToolGateway server that serves CallTools only (as before the stream existed), forwarding to the
    // real gateway; it counts the unary batches it served.
    const definition = staticServiceDefinition(ToolGateway);
    const { CallToolsStream: _stream, ...older } = definition;
    let served = 0;
    const server = new Server();
    server.addService(older, {
      CallTools(
        c: ServerUnaryCall<CallToolsRequest__Output, unknown>,
        done: sendUnaryData<{ results: ToolResult__Output[] }>,
      ) {
        served += 1;
        unary.callTools(c.request).then(
          (results) => done(null, { results }),
          (err) => done(err),
        );
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    const client = new GatewayClient(`127.0.0.1:${port}`);
    try {
      // two batches sent before the answer: both went out on the stream and both come back via unary
      const [a, b] = await Promise.all([
        client.callTools({ calls: [call("testbed__echo", { value: "a" })] }),
        client.callTools({ calls: [call("testbed__echo", { value: "b" })] }),
      ]);
      const c = await client.callTools({ calls: [call("testbed__echo", { value: "c" })] });
      expect([a, b, c].map((r) => JSON.parse(r[0]!.structured_content_json).value)).toEqual(["a", "b", "c"]);
      expect(served).toBe(3);
    } finally {
      client.close();
      server.forceShutdown();
    }
  });
});

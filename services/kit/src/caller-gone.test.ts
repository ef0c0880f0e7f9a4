// callerGone over real gRPC on loopback: a client's cancel and a passed deadline reach the handler's
// signal with their own reasons, and an answered call leaves no listener behind.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Client,
  credentials,
  type GrpcObject,
  loadPackageDefinition,
  type ServerUnaryCall,
  type ServiceClientConstructor,
  type ServiceDefinition,
  type sendUnaryData,
} from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerGone } from "./caller-gone.ts";
import { type GrpcHost, startGrpcHost } from "./grpc-host.ts";

const PROTO = `syntax = "proto3";
package kittest;
message Req { bool answer = 1; }
message Res { string text = 1; }
service Waiter { rpc Wait (Req) returns (Res); }
`;

interface Seen {
  reason: unknown;
  remainingMs: number | undefined;
  listenersAfterDone: number;
}

describe("callerGone", () => {
  let host: GrpcHost;
  // biome-ignore lint/suspicious/noExplicitAny: a dynamically loaded grpc-js client
  let client: Client & { Wait: (...args: any[]) => any };
  const seen: Seen[] = [];
  const waiters: (() => void)[] = [];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "kit-caller-gone-"));
    writeFileSync(join(dir, "waiter.proto"), PROTO);
    const definition = loadSync(join(dir, "waiter.proto"));
    const pkg = (loadPackageDefinition(definition) as GrpcObject).kittest as GrpcObject;
    const Waiter = pkg.Waiter as ServiceClientConstructor;
    host = await startGrpcHost({
      definition,
      serviceName: "kittest.Waiter",
      host: "127.0.0.1",
      port: 0,
      maxMessageBytes: 1 << 20,
      addServices(server) {
        server.addService(Waiter.service as ServiceDefinition, {
          Wait(call: ServerUnaryCall<{ answer: boolean }, unknown>, callback: sendUnaryData<unknown>) {
            const gone = callerGone(call);
            const entry: Seen = { reason: undefined, remainingMs: gone.remainingMs, listenersAfterDone: -1 };
            seen.push(entry);
            if (call.request.answer) {
              callback(null, { text: "ok" });
              gone.done();
              entry.listenersAfterDone = call.listenerCount("cancelled");
              return;
            }
            // Never answers: waits for the caller to go.
            gone.signal.addEventListener("abort", () => {
              entry.reason = gone.signal.reason;
              waiters.shift()?.();
            });
          },
        });
      },
    });
    client = new Waiter(`127.0.0.1:${host.port}`, credentials.createInsecure()) as unknown as typeof client;
  });

  afterAll(async () => {
    client.close();
    await host.close(100);
  });

  const aborted = () => new Promise<void>((resolve) => waiters.push(resolve));

  it("a passed deadline aborts with a TimeoutError, and the handler learned the time it had", async () => {
    const signalled = aborted();
    const answer = new Promise((resolve) =>
      client.Wait({ answer: false }, { deadline: Date.now() + 200 }, (err: unknown) => resolve(err)),
    );
    await signalled;
    expect(await answer).toMatchObject({ code: 4 }); // DEADLINE_EXCEEDED
    const entry = seen.at(-1)!;
    expect(entry.reason).toBeInstanceOf(DOMException);
    expect((entry.reason as DOMException).name).toBe("TimeoutError");
    expect(entry.remainingMs).toBeGreaterThan(0);
    expect(entry.remainingMs).toBeLessThanOrEqual(200);
  });

  it("a client's cancel aborts with an Error that says so (not a timeout)", async () => {
    const signalled = aborted();
    const call = client.Wait({ answer: false }, { deadline: Date.now() + 60_000 }, () => {}) as {
      cancel(): void;
    };
    // Cancel once the server holds the call.
    await expect.poll(() => seen.filter((s) => s.reason === undefined).length, { timeout: 10_000 }).toBe(1);
    call.cancel();
    await signalled;
    const entry = seen.at(-1)!;
    expect(entry.reason).toBeInstanceOf(Error);
    expect((entry.reason as Error).message).toBe("the client cancelled the call");
  });

  it("a call without a deadline has no remaining time; an answered call leaves no listener", async () => {
    const text = await new Promise((resolve, reject) =>
      client.Wait({ answer: true }, (err: unknown, res: { text: string }) =>
        err ? reject(err) : resolve(res.text),
      ),
    );
    expect(text).toBe("ok");
    const entry = seen.at(-1)!;
    expect(entry.remainingMs).toBeUndefined();
    expect(entry.listenersAfterDone).toBe(0);
  });
});

// An MCP server for the gateway's tests, built with @rlfactory/toolkit.
//
//   node test/support/src/testbed-server.ts [--stdio | --http PORT [--host H]]
//
// With TESTBED_EVENTS=/path/file.jsonl every call appends JSON lines
// {"event":"executed"|"finished"|"failed"|"cancelled","tool","args","pid","in_flight","t"}: "executed"
// when a handler starts, "finished" when it returns normally, "failed" when it throws, "cancelled" when
// the client cancelled it mid-wait. `in_flight` is how many handlers of this process were running
// just after the event, so tests can read the concurrency the server saw (testbed-process.ts).
import { appendFileSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import {
  createToolServer,
  defineTool,
  rawResult,
  serveFromArgs,
  ToolError,
  type ToolServer,
} from "@rlfactory/toolkit";
import { z } from "zod";
import { type Deferred, deferred } from "./deferred.ts";

export type TestbedEvent = "executed" | "finished" | "failed" | "cancelled";

/** A 1x1 transparent PNG. */
export const TINY_PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** Handlers running in this process now. */
let inFlight = 0;

function record(event: TestbedEvent, tool: string, args: unknown): void {
  const file = process.env.TESTBED_EVENTS;
  if (file === undefined || file === "") return;
  const line = { event, tool, args, pid: process.pid, in_flight: inFlight, t: Date.now() };
  appendFileSync(file, `${JSON.stringify(line)}\n`);
}

/** A call the client cancelled while it waited. */
class CancelledError extends ToolError {}

/** Records executed, then finished, failed or cancelled, around `work`. */
async function traced<T>(tool: string, args: unknown, work: () => Promise<T>): Promise<T> {
  inFlight += 1;
  record("executed", tool, args);
  let outcome: TestbedEvent = "failed";
  try {
    const result = await work();
    outcome = "finished";
    return result;
  } catch (error) {
    if (error instanceof CancelledError) outcome = "cancelled";
    throw error;
  } finally {
    inFlight -= 1;
    record(outcome, tool, args);
  }
}

/**
 * Calls of one `group` waiting for each other: each call returns once `parties` calls of its group are
 * running at the same time, or fails after `timeoutMs` naming how many arrived. A server that gets the
 * calls one after another never releases them, so a released group proves they ran concurrently.
 */
class Rendezvous {
  readonly #groups = new Map<string, { arrived: number; release: Deferred<void> }>();

  async meet(group: string, parties: number, timeoutMs: number, signal: AbortSignal): Promise<number> {
    let g = this.#groups.get(group);
    if (g === undefined) {
      g = { arrived: 0, release: deferred<void>() };
      this.#groups.set(group, g);
    }
    g.arrived += 1;
    if (g.arrived === parties) {
      this.#groups.delete(group);
      g.release.resolve();
      return g.arrived;
    }
    const timeout = AbortSignal.timeout(timeoutMs);
    const gaveUp = deferred<void>();
    const onAbort = () => gaveUp.resolve();
    const either = AbortSignal.any([signal, timeout]);
    either.addEventListener("abort", onAbort, { once: true });
    try {
      await Promise.race([g.release.promise, gaveUp.promise]);
    } finally {
      either.removeEventListener("abort", onAbort);
    }
    if (either.aborted) {
      g.arrived -= 1;
      if (signal.aborted) throw new CancelledError(`rendezvous ${group} was cancelled`);
      throw new ToolError(
        `rendezvous ${group}: ${g.arrived + 1} of ${parties} calls arrived within ${timeoutMs} ms`,
      );
    }
    return parties;
  }
}

/** Waits `ms`, or fails with CancelledError as soon as the call is cancelled. */
async function wait(ms: number, signal: AbortSignal, tool: string): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch (error) {
    if (!signal.aborted) throw error;
    throw new CancelledError(`${tool} was cancelled`);
  }
}

const readOnly = { readOnlyHint: true, idempotentHint: true } as const;
const ms = z.number().int().min(0).max(3_600_000);

export function createTestbedServer(): ToolServer {
  let notIdempotentRuns = 0;
  const rendezvous = new Rendezvous();

  const server: ToolServer = createToolServer({
    name: "testbed",
    version: "0.1.0",
    tools: [
      defineTool({
        name: "sleep",
        description: "Waits `ms` milliseconds (honouring cancellation) and reports how long it slept.",
        input: z.object({ ms, tag: z.string().optional() }),
        output: z.object({ slept: z.number() }),
        annotations: readOnly,
        handler: (args, ctx) =>
          traced("sleep", args, async () => {
            await wait(args.ms, ctx.signal, "sleep");
            return { slept: args.ms };
          }),
      }),
      defineTool({
        name: "rendezvous",
        description:
          "Returns once `parties` calls with this `group` are running at the same time; fails after `timeout_ms`.",
        input: z.object({
          group: z.string(),
          parties: z.number().int().min(1).max(1024),
          timeout_ms: ms.default(10_000),
        }),
        output: z.object({ met: z.number().int() }),
        handler: (args, ctx) =>
          traced("rendezvous", args, async () => ({
            met: await rendezvous.meet(args.group, args.parties, args.timeout_ms, ctx.signal),
          })),
      }),
      defineTool({
        name: "echo",
        description: "Returns `value` unchanged, after `delay_ms` (default 0).",
        input: z.object({ value: z.json(), delay_ms: ms.optional() }),
        output: z.object({ value: z.json() }),
        annotations: readOnly,
        handler: (args, ctx) =>
          traced("echo", args, async () => {
            if (args.delay_ms !== undefined && args.delay_ms > 0)
              await wait(args.delay_ms, ctx.signal, "echo");
            return { value: args.value };
          }),
      }),
      defineTool({
        name: "fail",
        description: "Always fails with `message` (an isError result).",
        input: z.object({ message: z.string() }),
        handler: (args) =>
          traced("fail", args, async () => {
            throw new ToolError(args.message);
          }),
      }),
      defineTool({
        name: "big",
        description: "Returns a text of `bytes` 'x' characters (no structured output).",
        input: z.object({
          bytes: z
            .number()
            .int()
            .min(0)
            .max(64 * 1024 * 1024),
        }),
        annotations: readOnly,
        handler: (args) => traced("big", args, async () => "x".repeat(args.bytes)),
      }),
      defineTool({
        name: "image",
        description: "Returns one image content block (a 1x1 PNG).",
        input: z.object({}),
        annotations: readOnly,
        handler: (args) =>
          traced("image", args, async () =>
            rawResult([{ type: "image", data: TINY_PNG_BASE64, mimeType: "image/png" }]),
          ),
      }),
      defineTool({
        name: "pid",
        description: "Returns the server's process id.",
        input: z.object({}),
        output: z.object({ pid: z.number().int() }),
        annotations: readOnly,
        handler: (args) => traced("pid", args, async () => ({ pid: process.pid })),
      }),
      defineTool({
        name: "add_tool",
        description:
          "Registers a new tool `name` (returning { added: name } when called); clients get tools/list_changed.",
        input: z.object({ name: z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/) }),
        output: z.object({ added: z.string() }),
        handler: (args) =>
          traced("add_tool", args, async () => {
            if (server.hasTool(args.name)) throw new ToolError(`tool ${args.name} already exists`);
            const name = args.name;
            server.addTool(
              defineTool({
                name,
                description: "Added at runtime by add_tool.",
                input: z.object({}),
                output: z.object({ added: z.string() }),
                handler: (added) => traced(name, added, async () => ({ added: name })),
              }),
            );
            return { added: name };
          }),
      }),
      defineTool({
        name: "not_idempotent",
        description: "Counts how often it ran in this process (no annotations: unsafe to retry or cache).",
        input: z.object({}),
        output: z.object({ count: z.number().int() }),
        handler: (args) =>
          traced("not_idempotent", args, async () => {
            notIdempotentRuns += 1;
            return { count: notIdempotentRuns };
          }),
      }),
    ],
  });
  return server;
}

if (import.meta.main) {
  await serveFromArgs(createTestbedServer(), process.argv.slice(2));
}

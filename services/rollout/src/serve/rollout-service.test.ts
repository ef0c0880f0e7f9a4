// The rollout service over real sockets on 127.0.0.1: gRPC (typed client, raw messages, grpcurl) and
// HTTP JSON/NDJSON, in front of a test fixture engine whose groups finish when the test says so.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { type ServiceError, status } from "@grpc/grpc-js";
import { RolloutClient, type RolloutRequestInput, type TrajectoryGroupJson } from "@rlfactory/clients";
import type { Task } from "@rlfactory/contracts";
import { type Trajectory, TrajectoryBuilder } from "@rlfactory/contracts";
import type { RolloutRequest } from "@rlfactory/proto/types/RolloutRequest";
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { groupAdvantages } from "../grpo.ts";
import { InvalidTaskError } from "../rollout/create-rollout-engine.ts";
import type { RolloutEngine, RolloutOptions, TrajectoryGroup } from "../rollout/rollout-engine.ts";
import { type RolloutServiceHandle, startRolloutService } from "./rollout-service.ts";

// --- TEST FIXTURE: a stand-in for the rollout engine, used only by this file ---------------------

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * TEST FIXTURE, not the real engine: implements `RolloutEngine` with real `Trajectory` records from
 * `TrajectoryBuilder`. Groups finish in reverse input order (last task first), so completion order is
 * never input order; a task listed in `hold` does not finish until `release(id)` or an abort (then its
 * trajectories end `aborted`, as the real engine's do). A task id starting `unrenderable` fails the
 * request as the real engine does for a prompt it cannot render; one starting `explode` makes the engine
 * throw when its turn comes. It records what each request asked for.
 */
class FixtureRolloutEngine implements RolloutEngine {
  readonly requests: { tasks: readonly Task[]; options: RolloutOptions }[] = [];
  /** Every group yielded, in order. */
  readonly yielded: TrajectoryGroup[] = [];
  /** Resolves when a request reaches the engine. */
  started = deferred<void>();
  /** Resolves with the abort reason when a request's signal aborts. */
  abortSeen = deferred<unknown>();
  readonly #held = new Map<string, Deferred<void>>();

  hold(...taskIds: string[]): void {
    for (const id of taskIds) this.#held.set(id, deferred());
  }

  release(taskId: string): void {
    this.#held.get(taskId)?.resolve();
  }

  reset(): void {
    this.requests.length = 0;
    this.yielded.length = 0;
    this.started = deferred();
    this.abortSeen = deferred();
    this.#held.clear();
  }

  async *rollout(tasks: readonly Task[], options: RolloutOptions = {}): AsyncIterable<TrajectoryGroup> {
    this.requests.push({ tasks, options });
    const signal = options.signal;
    const aborted = new Promise<void>((resolve) => {
      if (signal?.aborted) resolve();
      signal?.addEventListener("abort", () => resolve(), { once: true });
    });
    void aborted.then(() => this.abortSeen.resolve(signal?.reason));
    this.started.resolve();
    for (const task of tasks) {
      // What the real engine does with a prompt it cannot render, before any group completes.
      if (task.id.startsWith("unrenderable"))
        throw new InvalidTaskError(`task ${task.id}: cannot render its prompt`);
    }
    for (const task of [...tasks].reverse()) {
      if (task.id.startsWith("explode")) throw new Error(`engine broke on ${task.id}`);
      const held = this.#held.get(task.id);
      if (held) await Promise.race([held.promise, aborted]);
      const group = fixtureGroup(task, options);
      this.yielded.push(group);
      yield group;
    }
  }

  async close(): Promise<void> {}
}

function fixtureGroup(task: Task, options: RolloutOptions): TrajectoryGroup {
  const n = options.groupSize ?? 2;
  const trajectories: Trajectory[] = [];
  const promptIds = [...task.id].map((ch) => ch.charCodeAt(0));
  for (let i = 0; i < n; i++) {
    const b = new TrajectoryBuilder({
      taskId: task.id,
      groupId: `${task.id}#g`,
      sampleIndex: i,
      promptIds,
      vocabSize: 1000,
      policyVersion: options.policyVersion ?? null,
      metadata: { data_source: task.data_source },
    });
    // Logprobs exact in float32, so a record is the same after the gRPC round trip.
    const turn = b.appendSampled([100 + i, 101], [-0.5, -0.25]);
    b.recordToolCall({
      name: "search__search",
      arguments: { query: task.id },
      result: `results for ${task.id}`,
      latency_ms: 3,
      error_code: null,
      is_error: false,
      turn,
    });
    b.appendObservation([7, 8, 9]);
    b.appendSampled([200], [-1.5]);
    if (!options.signal?.aborted) b.setReward(i % 2, { em: i % 2 });
    b.addTiming("total_ms", 10 + i);
    b.finish(
      options.signal?.aborted ? "aborted" : "completed",
      options.signal?.aborted ? "request aborted" : null,
    );
    trajectories.push(b.toJSON());
  }
  const { advantages, stats } = groupAdvantages(
    trajectories.map((t) => t.reward),
    { mode: "grpo" },
  );
  return {
    taskId: task.id,
    groupId: `${task.id}#g`,
    trajectories: trajectories.map((t, i) => ({
      ...t,
      advantage: advantages[i] ?? null,
      reward_error: null,
    })),
    stats,
  };
}

// --- helpers ---------------------------------------------------------------------------------------

const ROOT = resolve(import.meta.dirname, "../../../..");
const silent = pino({ level: "silent" });

const task = (id: string): RolloutRequestInput["tasks"][number] => ({
  id,
  data_source: "fixture",
  prompt: [{ role: "user", content: `question ${id}` }],
  ground_truth: [`answer ${id}`],
});

/** Fails the test instead of hanging when something that should happen does not. */
function within<T>(promise: Promise<T>, what: string, ms = 5_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
    }),
  ]);
}

function toJson(g: TrajectoryGroup): TrajectoryGroupJson {
  return {
    task_id: g.taskId,
    group_id: g.groupId,
    trajectories: g.trajectories,
    stats: g.stats,
    dropped_stale: 0,
  };
}

/** Reads an NDJSON response body line by line. */
async function* ndjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      yield JSON.parse(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf("\n");
    }
  }
  if (buffered.trim()) yield JSON.parse(buffered);
}

function rawBatch(client: RolloutClient, message: RolloutRequest): Promise<unknown> {
  return new Promise((resolve, reject) =>
    client.raw.RolloutBatch(message, (err, res) => (err ? reject(err) : resolve(res))),
  );
}

// --- tests -----------------------------------------------------------------------------------------

describe("rollout service", () => {
  const engine = new FixtureRolloutEngine();
  let service: RolloutServiceHandle;
  let client: RolloutClient;

  beforeAll(async () => {
    service = await startRolloutService(engine, { grpcPort: 0, httpPort: 0, log: silent });
    client = new RolloutClient(service.grpcAddress);
  });
  afterAll(async () => {
    client?.close();
    await service?.close();
  });
  beforeEach(() => engine.reset());

  describe("gRPC", () => {
    it("streams each group as it completes, not in input order and not all at the end", async () => {
      engine.hold("a");
      const stream = client
        .rollout({ tasks: [task("a"), task("b"), task("c")], group_size: 3 })
        [Symbol.asyncIterator]();
      const first = await within(stream.next(), "the first group");
      const second = await within(stream.next(), "the second group");
      // "a" is still held in the engine: these two arrived while the request was running.
      expect([first.value?.taskId, second.value?.taskId]).toEqual(["c", "b"]);
      engine.release("a");
      const third = await within(stream.next(), "the held group");
      expect(third.value?.taskId).toBe("a");
      expect((await within(stream.next(), "the end of the stream")).done).toBe(true);
      expect([first.value, second.value, third.value]).toEqual(engine.yielded);
      expect(first.value?.trajectories).toHaveLength(3);
    });

    it("passes the request's options to the engine", async () => {
      await client.rolloutBatch({
        tasks: [task("a")],
        group_size: 4,
        max_turns: 3,
        policy_version: 9,
        sampling: { temperature: 0.6, max_tokens: 64, stop: ["</answer>"] },
        inference: { urls: ["http://127.0.0.1:18000/"], engine: "sglang" },
      });
      const [request] = engine.requests;
      expect(request?.tasks).toEqual([{ ...task("a"), extra_info: {} }]);
      expect(request?.options).toMatchObject({
        groupSize: 4,
        maxTurns: 3,
        policyVersion: 9,
        sampling: { temperature: 0.6, max_tokens: 64, stop: ["</answer>"] },
        inference: { urls: ["http://127.0.0.1:18000"], engine: "sglang" },
      });
      expect(request?.options.signal).toBeInstanceOf(AbortSignal);
    });

    it("delivers a task's environment, turns and tool_aliases to the engine intact", async () => {
      const bfcl: RolloutRequestInput["tasks"][number] = {
        ...task("env"),
        environment: {
          server: "bfcl",
          config: { involved_classes: ["GorillaFileSystem"], initial_config: { GorillaFileSystem: {} } },
        },
        tool_aliases: { cd: "bfcl__cd", ls: "bfcl__ls" },
        turns: [{ content: "Now list it.", tools: ["ls"], ground_truth: [{ name: "ls", arguments: {} }] }],
      };
      await client.rolloutBatch({ tasks: [bfcl] });
      expect(engine.requests[0]?.tasks).toEqual([{ ...bfcl, extra_info: {} }]);
    });

    it("answers RolloutBatch with every group in completion order", async () => {
      const groups = await client.rolloutBatch({ tasks: [task("x"), task("y")], policy_version: "w-1" });
      expect(groups.map((g) => g.taskId)).toEqual(["y", "x"]);
      expect(groups).toEqual(engine.yielded);
      expect(groups[0]?.trajectories[0]?.policy_version).toBe("w-1");
    });

    it("rejects bad requests with INVALID_ARGUMENT and a message naming the field", async () => {
      const cases: [RolloutRequest, RegExp][] = [
        [{ tasks: [] }, /tasks: a rollout needs at least one task/],
        [{ tasks: [{ id: "a", prompt: [] }] }, /tasks\[0\]\.prompt/],
        [
          { tasks: [{ id: "a", prompt: [{ role: "user", content: "q" }] }], group_size: 0 },
          /group_size: must be between 1 and 1024/,
        ],
        [
          { tasks: [{ id: "a", prompt: [{ role: "user", content: "q" }] }], group_size: 5000 },
          /group_size: must be between 1 and 1024/,
        ],
        [
          { tasks: [{ id: "a", prompt: [{ role: "user", content: "q" }], ground_truth_json: "{" }] },
          /ground_truth_json: not JSON/,
        ],
      ];
      for (const [message, details] of cases) {
        const err = (await rawBatch(client, message).catch((e: unknown) => e)) as ServiceError;
        expect(err.code, JSON.stringify(message)).toBe(status.INVALID_ARGUMENT);
        expect(err.details).toMatch(details);
        // The streaming RPC validates the same way, before anything is streamed.
        const streamErr = (await (async () => {
          for await (const _ of client.raw.Rollout(message)) {
            /* nothing is expected */
          }
        })().catch((e: unknown) => e)) as ServiceError;
        expect(streamErr.code).toBe(status.INVALID_ARGUMENT);
        expect(streamErr.details).toMatch(details);
      }
      expect(engine.requests).toHaveLength(0);
    });

    it("maps the engine's request errors to INVALID_ARGUMENT and its failures to INTERNAL", async () => {
      const invalid = (await client
        .rolloutBatch({ tasks: [task("ok"), task("unrenderable-1")] })
        .catch((e: unknown) => e)) as ServiceError;
      expect(invalid.code).toBe(status.INVALID_ARGUMENT);
      expect(invalid.details).toMatch(/unrenderable-1: cannot render its prompt/);

      // The stream carries the groups finished before the failure, then the status.
      const received: string[] = [];
      const failed = (await (async () => {
        for await (const group of client.rollout({ tasks: [task("explode-1"), task("fine")] })) {
          received.push(group.taskId);
        }
      })().catch((e: unknown) => e)) as ServiceError;
      expect(received).toEqual(["fine"]);
      expect(failed.code).toBe(status.INTERNAL);
      expect(failed.details).toBe("rollout failed: engine broke on explode-1");
    });

    it("aborts the engine's request when the client cancels the stream", async () => {
      engine.hold("slow");
      const controller = new AbortController();
      const consumed = (async () => {
        for await (const _ of client.rollout({ tasks: [task("slow")] }, { signal: controller.signal })) {
          /* the held group never arrives */
        }
      })().catch((e: unknown) => e);
      await within(engine.started.promise, "the request to reach the engine");
      controller.abort(new Error("trainer stopped"));
      await within(engine.abortSeen.promise, "the engine to see the abort");
      expect(((await consumed) as Error).message).toBe("trainer stopped");
      expect(engine.yielded[0]?.trajectories.every((t) => t.status === "aborted")).toBe(true);
    });

    it("aborts the engine's request when the call's deadline passes", async () => {
      engine.hold("slow");
      const err = (await client
        .rolloutBatch({ tasks: [task("slow")] }, { deadlineMs: 300 })
        .catch((e: unknown) => e)) as ServiceError;
      expect(err.code).toBe(status.DEADLINE_EXCEEDED);
      await within(engine.abortSeen.promise, "the engine to see the abort");
    });
  });

  describe("HTTP", () => {
    const post = (body: unknown, init: { accept?: string; query?: string; signal?: AbortSignal } = {}) =>
      fetch(`${service.httpUrl}/v1/rollout${init.query ?? ""}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(init.accept ? { accept: init.accept } : {}) },
        body: typeof body === "string" ? body : JSON.stringify(body),
        ...(init.signal ? { signal: init.signal } : {}),
      });

    it("answers GET /healthz", async () => {
      const res = await fetch(`${service.httpUrl}/healthz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: "ok" });
    });

    it("lists a request as a run while it runs, with its progress, statuses and a curve point per group", async () => {
      engine.hold("a");
      const res = await post(
        { tasks: [task("a"), task("b"), task("c")], group_size: 2 },
        { query: "?stream=1" },
      );
      const lines = ndjsonLines(res.body!)[Symbol.asyncIterator]();
      await within(lines.next(), "the first line");
      await within(lines.next(), "the second line");
      // "a" is held: the run is in flight with two of its three groups done.
      const listed = (await (await fetch(`${service.httpUrl}/v1/runs`)).json()) as {
        runs: { id: string; state: string; tasks: number; groups: number; trajectories: number }[];
      };
      const running = listed.runs.find((r) => r.state === "running");
      expect(running).toMatchObject({ tasks: 3, groups: 2, trajectories: 4 });
      engine.release("a");
      expect((await within(lines.next(), "the held group's line")).done).toBe(false);
      expect((await within(lines.next(), "the end of the body")).done).toBe(true);
      const detail = await fetch(`${service.httpUrl}/v1/runs/${running?.id}`);
      expect(detail.status).toBe(200);
      const run = (await detail.json()) as {
        state: string;
        status_counts: Record<string, number>;
        curves: { points: { batch: number; reward_mean: number; success_rate: number }[] };
        trajectories_per_s: number;
      };
      expect(run.state).toBe("done");
      expect(run.status_counts).toEqual({ completed: 6 });
      // Each fixture group has rewards 0 and 1 (em 0 and 1): mean 0.5, half succeeded.
      expect(run.curves.points).toEqual(
        [0, 1, 2].map((batch) => ({
          batch,
          trajectories: 2,
          scored: 2,
          reward_mean: 0.5,
          success_rate: 0.5,
        })),
      );
      expect(run.trajectories_per_s).toBeGreaterThan(0);
      expect((await fetch(`${service.httpUrl}/v1/runs/nope`)).status).toBe(404);
    });

    it("answers with every group's JSON records, unchanged", async () => {
      const res = await post({ tasks: [task("p"), task("q")], group_size: 2 });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { groups: TrajectoryGroupJson[] };
      expect(body.groups).toEqual(engine.yielded.map(toJson));
      expect(body.groups.map((g) => g.task_id)).toEqual(["q", "p"]);
    });

    it.each([
      ["Accept: application/x-ndjson", { accept: "application/x-ndjson" }],
      ["?stream=1", { query: "?stream=1" }],
    ])("streams one group per line as each completes (%s)", async (_, how) => {
      engine.hold("a");
      const res = await post({ tasks: [task("a"), task("b")] }, how);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
      const lines = ndjsonLines(res.body!)[Symbol.asyncIterator]();
      const first = await within(lines.next(), "the first line");
      expect(first.value).toEqual(toJson(engine.yielded[0]!));
      expect((first.value as TrajectoryGroupJson).task_id).toBe("b");
      engine.release("a");
      const second = await within(lines.next(), "the held group's line");
      expect((second.value as TrajectoryGroupJson).task_id).toBe("a");
      expect((await within(lines.next(), "the end of the body")).done).toBe(true);
    });

    it.each([
      ["no tasks", { tasks: [] }, /at least one task/],
      [
        "an invalid task",
        { tasks: [{ id: "a", prompt: [{ role: "robot", content: "x" }] }] },
        /tasks\[0\]\.prompt\[0\]\.role/,
      ],
      ["group_size 0", { tasks: [task("a")], group_size: 0 }, /group_size: must be between 1 and 1024/],
      ["group_size 2048", { tasks: [task("a")], group_size: 2048 }, /group_size: must be between 1 and 1024/],
      ["an unknown key", { tasks: [task("a")], groupsize: 2 }, /groupsize/],
      ["text that is not JSON", "{tasks:", /JSON/i],
    ])("answers 400 { error } for %s", async (_, body, message) => {
      const res = await post(body);
      expect(res.status).toBe(400);
      const json = (await res.json()) as { error: string };
      expect(Object.keys(json)).toEqual(["error"]);
      expect(json.error).toMatch(message);
      expect(engine.requests).toHaveLength(0);
    });

    it("answers 400 for a task the engine cannot render and 500 when the engine fails", async () => {
      const invalid = await post({ tasks: [task("unrenderable-2")] });
      expect(invalid.status).toBe(400);
      expect(await invalid.json()).toEqual({ error: "task unrenderable-2: cannot render its prompt" });

      const failed = await post({ tasks: [task("explode-2")] });
      expect(failed.status).toBe(500);
      expect(await failed.json()).toEqual({ error: "rollout failed: engine broke on explode-2" });
    });

    it("ends an NDJSON stream that fails midway with an { error } line", async () => {
      const res = await post(
        { tasks: [task("explode-3"), task("fine")] },
        { accept: "application/x-ndjson" },
      );
      expect(res.status).toBe(200);
      const lines = [];
      for await (const line of ndjsonLines(res.body!)) lines.push(line);
      expect(lines).toEqual([
        toJson(engine.yielded[0]!),
        { error: "rollout failed: engine broke on explode-3" },
      ]);
    });

    it.each([
      ["JSON", {}],
      ["NDJSON", { accept: "application/x-ndjson" }],
    ])("aborts the engine's request when the client disconnects (%s)", async (_, how) => {
      engine.hold("slow");
      const controller = new AbortController();
      const response = post({ tasks: [task("slow")] }, { ...how, signal: controller.signal })
        .then(async (res) => res.text())
        .then(
          () => "answered",
          (err: Error) => err.name,
        );
      await within(engine.started.promise, "the request to reach the engine");
      controller.abort();
      await within(engine.abortSeen.promise, "the engine to see the abort");
      expect(await response).toBe("AbortError");
    });
  });
});

describe("policy version and staleness", () => {
  const engine = new FixtureRolloutEngine();
  const started: RolloutServiceHandle[] = [];
  afterAll(async () => {
    await Promise.all(started.map((s) => s.close()));
  });
  beforeEach(() => engine.reset());

  async function serve(staleness: { max_staleness?: number; on_stale: "flag" | "drop" }) {
    const service = await startRolloutService(engine, { grpcPort: 0, httpPort: 0, staleness, log: silent });
    started.push(service);
    return service;
  }

  async function setVersion(service: RolloutServiceHandle, version: unknown): Promise<Response> {
    return fetch(`${service.httpUrl}/v1/policy_version`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ version }),
    });
  }

  it("records the version the trainer set on requests that name none, over HTTP and gRPC", async () => {
    const service = await serve({ on_stale: "flag" });
    expect(await (await fetch(`${service.httpUrl}/v1/policy_version`)).json()).toEqual({
      version: null,
      max_staleness: null,
      on_stale: "flag",
    });
    const set = await setVersion(service, 4);
    expect(set.status).toBe(200);
    expect(await set.json()).toEqual({ version: 4, max_staleness: null, on_stale: "flag" });
    const client = new RolloutClient(service.grpcAddress);
    try {
      const [fromServer] = await client.rolloutBatch({ tasks: [task("a")] });
      expect(fromServer?.trajectories.map((t) => t.policy_version)).toEqual([4, 4]);
      // A request that names its own version keeps it.
      const [own] = await client.rolloutBatch({ tasks: [task("b")], policy_version: 2 });
      expect(own?.trajectories.map((t) => t.policy_version)).toEqual([2, 2]);
      // gRPC sets it too; integer text is a step again.
      const state = await new Promise<unknown>((resolve, reject) =>
        client.raw.SetPolicyVersion({ version: "5" }, (err, res) => (err ? reject(err) : resolve(res))),
      );
      expect(state).toMatchObject({ version: "5", on_stale: "flag" });
      expect(state).not.toHaveProperty("max_staleness");
      const [after] = await client.rolloutBatch({ tasks: [task("c")] });
      expect(after?.trajectories[0]?.policy_version).toBe(5);
    } finally {
      client.close();
    }
  });

  it("rejects a version that is neither an integer nor a non-empty string", async () => {
    const service = await serve({ on_stale: "flag" });
    for (const bad of ["", 1.5, null, { step: 1 }]) {
      const res = await setVersion(service, bad);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/version/);
    }
  });

  it("flags trajectories that finish more than max_staleness versions behind, and only those", async () => {
    const service = await serve({ max_staleness: 1, on_stale: "flag" });
    await setVersion(service, 1);
    engine.hold("old");
    const res = fetch(`${service.httpUrl}/v1/rollout`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ tasks: [task("old"), task("fresh")] }),
    });
    await within(engine.started.promise, "the request to reach the engine");
    // "fresh" finishes at version 1; "old" is held while the trainer moves on two versions.
    await within(
      (async () => {
        while (engine.yielded.length === 0) await new Promise((r) => setTimeout(r, 5));
      })(),
      "the first group",
    );
    await setVersion(service, 3);
    engine.release("old");
    const body = (await (await res).json()) as { groups: TrajectoryGroupJson[] };
    const byTask = new Map(body.groups.map((g) => [g.task_id, g]));
    expect(byTask.get("fresh")?.trajectories.map((t) => t.stale)).toEqual([undefined, undefined]);
    expect(byTask.get("old")?.trajectories.map((t) => [t.policy_version, t.stale])).toEqual([
      [1, true],
      [1, true],
    ]);
    expect(byTask.get("old")?.dropped_stale).toBe(0);
  });

  it("drops a stale group whole and says how many trajectories it dropped", async () => {
    const service = await serve({ max_staleness: 0, on_stale: "drop" });
    await setVersion(service, 7);
    const client = new RolloutClient(service.grpcAddress);
    try {
      engine.hold("late");
      const groups = client.rolloutBatch({ tasks: [task("late")], group_size: 3 });
      await within(engine.started.promise, "the request to reach the engine");
      await setVersion(service, 8);
      engine.release("late");
      const [late] = await groups;
      expect(late?.trajectories).toEqual([]);
      expect(late?.droppedStale).toBe(3);
      expect(late?.stats).toMatchObject({ count: 0, scored: 0 });
      // Fresh groups pass untouched.
      const [fresh] = await client.rolloutBatch({ tasks: [task("now")], group_size: 3 });
      expect(fresh?.trajectories).toHaveLength(3);
      expect(fresh?.droppedStale).toBeUndefined();
    } finally {
      client.close();
    }
  });
});

describe("closing the rollout service", () => {
  it("aborts requests in flight and still delivers their groups, trajectories aborted", async () => {
    const engine = new FixtureRolloutEngine();
    const service = await startRolloutService(engine, { grpcPort: 0, httpPort: 0, log: silent });
    const client = new RolloutClient(service.grpcAddress);
    try {
      engine.hold("a");
      const batch = client.rolloutBatch({ tasks: [task("a"), task("b")] });
      await within(engine.started.promise, "the request to reach the engine");
      await within(service.close(), "the service to close");
      const groups = await within(batch, "the batch answer");
      expect(groups.map((g) => g.taskId)).toEqual(["b", "a"]);
      expect(groups[1]?.trajectories.map((t) => t.status)).toEqual(["aborted", "aborted"]);
      expect(groups[0]?.trajectories.map((t) => t.status)).toEqual(["completed", "completed"]);
    } finally {
      client.close();
      await service.close();
    }
  });
});

// --- an external client: grpcurl (installed by .ci/run) finds the service by reflection -------------

function findGrpcurl(): string | undefined {
  const local = join(ROOT, ".ci/bin/grpcurl");
  if (existsSync(local)) return local;
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir && existsSync(join(dir, "grpcurl"))) return join(dir, "grpcurl");
  }
  return undefined;
}

const grpcurl = findGrpcurl();
const run = promisify(execFile);

describe.skipIf(!grpcurl && !process.env.CI)(
  "grpcurl against the rollout service (.ci/run installs grpcurl)",
  () => {
    const engine = new FixtureRolloutEngine();
    let service: RolloutServiceHandle;
    const g = (...args: string[]) => run(grpcurl ?? "grpcurl", ["-plaintext", ...args], { timeout: 20_000 });

    beforeAll(async () => {
      expect(grpcurl, "grpcurl is not installed: .ci/run installs it into .ci/bin").toBeDefined();
      service = await startRolloutService(engine, { grpcPort: 0, httpPort: 0, log: silent });
    });
    afterAll(() => service?.close());

    it("lists RolloutService and health by reflection, and describes the trajectory message", async () => {
      const { stdout } = await g(service.grpcAddress, "list");
      expect(stdout.split("\n")).toEqual(
        expect.arrayContaining(["grpc.health.v1.Health", "rlfactory.v1.RolloutService"]),
      );
      const { stdout: methods } = await g(service.grpcAddress, "list", "rlfactory.v1.RolloutService");
      expect(methods.split("\n")).toEqual(
        expect.arrayContaining([
          "rlfactory.v1.RolloutService.Rollout",
          "rlfactory.v1.RolloutService.RolloutBatch",
        ]),
      );
      // Map fields (reward_components, timings) must describe cleanly for strict descriptor readers.
      const { stdout: message } = await g(service.grpcAddress, "describe", "rlfactory.v1.Trajectory");
      expect(message).toMatch(/map<string, double> reward_components/);
    });

    it("reports SERVING and runs a rollout from JSON it wrote itself", async () => {
      const { stdout: health } = await g(
        "-d",
        '{"service":"rlfactory.v1.RolloutService"}',
        service.grpcAddress,
        "grpc.health.v1.Health/Check",
      );
      expect(JSON.parse(health)).toEqual({ status: "SERVING" });

      const request = {
        tasks: [
          {
            id: "q1",
            prompt: [{ role: "user", content: "Who wrote Dune?" }],
            ground_truth_json: '"Frank Herbert"',
          },
        ],
        group_size: 2,
      };
      const { stdout } = await g(
        "-d",
        JSON.stringify(request),
        service.grpcAddress,
        "rlfactory.v1.RolloutService/Rollout",
      );
      const group = JSON.parse(stdout) as {
        task_id: string;
        trajectories: { response_ids: number[]; loss_mask: number[]; status: string }[];
      };
      const expected = engine.yielded[0]!;
      expect(group.task_id).toBe("q1");
      expect(group.trajectories).toHaveLength(2);
      expect(group.trajectories[0]?.response_ids).toEqual(expected.trajectories[0]?.response_ids);
      expect(group.trajectories[0]?.loss_mask).toEqual(expected.trajectories[0]?.loss_mask);
      expect(group.trajectories[0]?.status).toBe("TRAJECTORY_STATUS_COMPLETED");
      expect(engine.requests[0]?.tasks[0]?.ground_truth).toBe("Frank Herbert");
    });
  },
);

// defineEnvironment in process: the reserved tools, the handle argument, the server-side limit and idle
// expiry, and one operation at a time per episode. (Over a real gateway: test/gateway/episodes.e2e.test.ts.)
import { setTimeout as delay } from "node:timers/promises";
import { waitFor } from "@rlfactory/test-support/wait-for";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineEnvironment, type EnvironmentSpec } from "./define-environment.ts";
import { ToolError } from "./tool-error.ts";

type Log = { items: string[] };

function logEnvironment(
  limits: Pick<EnvironmentSpec<Log>, "maxEpisodes" | "idleTimeoutMs" | "maxSnapshotBytes"> = {},
) {
  const env = defineEnvironment<Log>({
    name: "log",
    create: (config) => ({ items: [...((config.items as string[] | undefined) ?? [])] }),
    fork: (state) => ({ items: [...state.items] }),
    snapshot: (state) => state.items,
    ...limits,
    tools: (tool) => [
      tool({
        name: "add",
        description: "Appends an item after delay_ms",
        input: z.object({ item: z.string(), delay_ms: z.number().default(0) }),
        handler: async ({ item, delay_ms }, state) => {
          await delay(delay_ms);
          state.items.push(item);
          return { count: state.items.length };
        },
      }),
    ],
  });
  const call = async (name: string, args: Record<string, unknown>) => {
    const def = env.tools.find((t) => t.name === name)!;
    return (await def.handler(def.input.parse(args), { signal: new AbortController().signal })) as Record<
      string,
      unknown
    >;
  };
  return {
    env,
    call,
    create: async (items: string[] = []) =>
      (await call("episode_create", { config: { items } })).episode as string,
  };
}

describe("defineEnvironment", () => {
  it("serves the reserved tools, then the stateful tools with the episode argument", () => {
    const { env } = logEnvironment();
    expect(env.tools.map((t) => t.name)).toEqual([
      "episode_create",
      "episode_fork",
      "episode_snapshot",
      "episode_close",
      "episode_batch",
      "add",
    ]);
    expect(Object.keys(env.tools.find((t) => t.name === "add")!.input.shape)).toEqual([
      "item",
      "delay_ms",
      "episode",
    ]);
  });

  it("creates, forks independent copies, snapshots and closes episodes", async () => {
    const { env, call, create } = logEnvironment();
    const a = await create(["x"]);
    await call("add", { episode: a, item: "y" });
    const { episodes } = (await call("episode_fork", { episode: a, count: 2 })) as { episodes: string[] };
    await call("add", { episode: episodes[0], item: "fork" });
    expect(await call("episode_snapshot", { episode: a })).toEqual({ state: ["x", "y"] });
    expect(await call("episode_snapshot", { episode: episodes[1] })).toEqual({ state: ["x", "y"] });
    expect(await call("episode_close", { episode: episodes[0] })).toEqual({ state: ["x", "y", "fork"] });
    expect(env.liveEpisodes()).toBe(2);
    await expect(call("add", { episode: episodes[0], item: "z" })).rejects.toThrow(
      new ToolError(`unknown episode "${episodes[0]}"`),
    );
    env.close();
  });

  it("runs the operations of one episode one after another, in the order they arrived", async () => {
    const { call, create } = logEnvironment();
    const a = await create();
    await Promise.all(
      [3, 2, 1, 0].map((i) => call("add", { episode: a, item: String(i), delay_ms: i * 10 })),
    );
    expect(await call("episode_close", { episode: a })).toEqual({ state: ["3", "2", "1", "0"] });
  });

  it("refuses episodes past maxEpisodes, and drops idle ones", async () => {
    const { env, call, create } = logEnvironment({ maxEpisodes: 2, idleTimeoutMs: 200 });
    const a = await create();
    await create();
    await expect(create()).rejects.toThrow(/episode limit reached: 2 live, at most 2/);
    await expect(call("episode_fork", { episode: a, count: 1 })).rejects.toThrow(/episode limit/);
    await waitFor(() => env.liveEpisodes() === 0, 10_000, "idle episodes to be dropped");
    await expect(call("episode_snapshot", { episode: a })).rejects.toThrow(/^unknown episode/);
    await create();
    env.close();
  });

  it("holds maxEpisodes under concurrent creates and forks: no state is made past it", async () => {
    let made = 0;
    const env = defineEnvironment<{ n: number }>({
      name: "slow",
      maxEpisodes: 3,
      create: async () => {
        await delay(5);
        made++;
        return { n: 0 };
      },
      fork: async (state) => {
        await delay(5);
        made++;
        return { ...state };
      },
      snapshot: (state) => state,
      tools: () => [],
    });
    const run = async (name: string, args: Record<string, unknown>) => {
      const def = env.tools.find((t) => t.name === name)!;
      return (await def.handler(def.input.parse(args), { signal: new AbortController().signal })) as Record<
        string,
        unknown
      >;
    };
    const creates = await Promise.allSettled(
      Array.from({ length: 10 }, () => run("episode_create", { config: {} })),
    );
    expect(creates.filter((r) => r.status === "fulfilled")).toHaveLength(3);
    for (const r of creates.filter((r) => r.status === "rejected"))
      expect(String((r as PromiseRejectedResult).reason)).toMatch(/episode limit reached/);
    expect(made).toBe(3);
    const first = (creates[0] as PromiseFulfilledResult<Record<string, unknown>>).value.episode;
    await run("episode_close", { episode: first });
    const forks = await Promise.allSettled(
      Array.from({ length: 4 }, () =>
        run("episode_fork", {
          episode: (creates[1] as PromiseFulfilledResult<Record<string, unknown>>).value.episode,
          count: 1,
        }),
      ),
    );
    expect(forks.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(made).toBe(4);
    expect(env.liveEpisodes()).toBe(3);
    env.close();
  });

  it("refuses a snapshot larger than maxSnapshotBytes, naming the limit; the episode goes on", async () => {
    const { call, create, env } = logEnvironment({ maxSnapshotBytes: 1_000 });
    const a = await create(["x".repeat(2_000)]);
    await expect(call("episode_snapshot", { episode: a })).rejects.toThrow(
      /^episode state too large: 2004 bytes; the limit is 1000 \(maxSnapshotBytes\)/,
    );
    expect(await call("add", { episode: a, item: "y" })).toEqual({ count: 2 });
    env.close();
  });

  it("reserves the episode_* names and the episode argument", () => {
    const base = { name: "x", create: () => ({}), fork: (s: object) => s, snapshot: (s: object) => s };
    expect(() =>
      defineEnvironment({
        ...base,
        tools: (tool) => [
          tool({ name: "episode_close", description: "", input: z.object({}), handler: async () => "" }),
        ],
      }),
    ).toThrow(/reserved/);
    expect(() =>
      defineEnvironment({
        ...base,
        tools: (tool) => [
          tool({
            name: "t",
            description: "",
            input: z.object({ episode: z.string() }),
            handler: async () => "",
          }),
        ],
      }),
    ).toThrow(/reserved/);
  });

  it.each([
    [false, 1],
    [true, 3],
  ])(
    "episode_batch with pipeline %s: %i of 3 calls started before the first answers; results in order either way",
    async (pipeline, startedEarly) => {
      // A state that lives "elsewhere": each call is answered when the test says so, in order.
      const started: string[] = [];
      const answers: (() => void)[] = [];
      const env = defineEnvironment<string[]>({
        name: "remote",
        pipeline,
        create: () => [],
        fork: (s) => [...s],
        snapshot: (s) => s,
        tools: (tool) => [
          tool({
            name: "add",
            description: "",
            input: z.object({ item: z.string() }),
            handler: async ({ item }, state) => {
              started.push(item);
              await new Promise<void>((resolve) => answers.push(resolve));
              state.push(item);
              return { items: [...state] };
            },
          }),
        ],
      });
      const run = async (name: string, args: Record<string, unknown>) => {
        const def = env.tools.find((t) => t.name === name)!;
        return (await def.handler(def.input.parse(args), { signal: new AbortController().signal })) as {
          episode: string;
          structuredContent: { results: { result: { structuredContent: unknown } }[] };
        };
      };
      const { episode } = await run("episode_create", { config: {} });
      const batch = run("episode_batch", {
        episode,
        calls: ["a", "b", "c"].map((item) => ({ name: "add", arguments: { item } })),
      });
      await waitFor(() => started.length === startedEarly, 5_000, "calls to start");
      await delay(20);
      expect(started).toHaveLength(startedEarly);
      for (let i = 0; i < 3; i++) {
        await waitFor(() => answers.length > i, 5_000, "the next call to wait");
        answers[i]!();
      }
      const { results } = (await batch).structuredContent;
      expect(results.map((r) => r.result.structuredContent)).toEqual([
        { items: ["a"] },
        { items: ["a", "b"] },
        { items: ["a", "b", "c"] },
      ]);
      env.close();
    },
  );
  it.each([false, true])(
    "episode_batch with pipeline %s: the caller going away aborts the running call with the caller's reason",
    async (pipeline) => {
      const aborted: unknown[] = [];
      let started = 0;
      const env = defineEnvironment<string[]>({
        name: "remote",
        pipeline,
        create: () => [],
        fork: (s) => [...s],
        snapshot: (s) => s,
        tools: (tool) => [
          tool({
            name: "wait",
            description: "",
            input: z.object({}),
            handler: (_args, _state, ctx) =>
              new Promise<Record<string, unknown>>((resolve) => {
                started++;
                ctx.signal.addEventListener("abort", () => {
                  aborted.push(ctx.signal.reason);
                  resolve({ stopped: true });
                });
              }),
          }),
        ],
      });
      const tool = (name: string) => env.tools.find((t) => t.name === name)!;
      const { episode } = (await tool("episode_create").handler(
        tool("episode_create").input.parse({ config: {} }),
        { signal: new AbortController().signal },
      )) as { episode: string };
      const caller = new AbortController();
      const batch = tool("episode_batch").handler(
        tool("episode_batch").input.parse({ episode, calls: [{ name: "wait", arguments: {} }] }),
        { signal: caller.signal },
      );
      await waitFor(() => started === 1, 5_000, "the call to start");
      expect(aborted).toEqual([]);
      caller.abort("caller gone");
      await batch;
      expect(aborted).toEqual(["caller gone"]);
      env.close();
    },
  );
});

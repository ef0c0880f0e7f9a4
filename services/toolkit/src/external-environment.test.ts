// defineEnvironment over state held elsewhere (the shape `rlf env python` uses): JSON-Schema tools
// listed as given plus the handle, forkMany in one request, close releasing the state there, and drop
// for episodes that expire without a close.
import { waitFor } from "@rlfactory/test-support/wait-for";
import { describe, expect, it } from "vitest";
import { defineEnvironment } from "./define-environment.ts";
import { toolDescriptor } from "./tool-descriptor.ts";

/** A stand-in for a remote store: state behind ids, with a record of what was asked of it. */
function remote() {
  const states = new Map<string, string[]>();
  const asked: string[] = [];
  let next = 1;
  const put = (items: string[]) => {
    const id = `r${next++}`;
    states.set(id, items);
    return id;
  };
  return { states, asked, put };
}

function externalEnvironment(idleTimeoutMs?: number) {
  const store = remote();
  const env = defineEnvironment<string>({
    name: "remote",
    ...(idleTimeoutMs !== undefined ? { idleTimeoutMs } : {}),
    create: async () => store.put([]),
    fork: async (id) => {
      store.asked.push(`fork ${id}`);
      return store.put([...store.states.get(id)!]);
    },
    forkMany: async (id, count) => {
      store.asked.push(`forkMany ${id} ${count}`);
      return Array.from({ length: count }, () => store.put([...store.states.get(id)!]));
    },
    snapshot: async (id) => store.states.get(id),
    close: async (id) => {
      store.asked.push(`close ${id}`);
      const final = store.states.get(id);
      store.states.delete(id);
      return final;
    },
    drop: (id) => {
      store.asked.push(`drop ${id}`);
      store.states.delete(id);
    },
    tools: (_tool, jsonTool) => [
      jsonTool({
        name: "add",
        description: "Appends an item",
        inputSchema: { type: "object", properties: { item: { type: "string" } }, required: ["item"] },
        handler: async (args, id) => {
          store.states.get(id)!.push(String(args.item));
          return { count: store.states.get(id)!.length };
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
  return { env, store, call };
}

describe("defineEnvironment over state held elsewhere", () => {
  it("lists a JSON-Schema tool's schema as given, with the episode handle added and required", () => {
    const { env } = externalEnvironment();
    const schema = toolDescriptor(env.tools.find((t) => t.name === "add")!).inputSchema;
    expect(schema.required).toEqual(["item", "episode"]);
    expect(Object.keys(schema.properties ?? {})).toEqual(["item", "episode"]);
    expect((schema.properties as Record<string, unknown>).episode).toEqual({
      type: "string",
      minLength: 1,
      description: "The episode handle (from episode_create or episode_fork)",
    });
  });

  it("hands the arguments without the handle to the handler, forks in one request, closes there", async () => {
    const { store, call } = externalEnvironment();
    const episode = (await call("episode_create", { config: {} })).episode as string;
    expect(await call("add", { item: "a", episode })).toEqual({ count: 1 });
    const { episodes } = (await call("episode_fork", { episode, count: 3 })) as { episodes: string[] };
    expect(episodes).toHaveLength(3);
    await call("add", { item: "b", episode: episodes[0] });
    expect((await call("episode_close", { episode: episodes[0] })).state).toEqual(["a", "b"]);
    expect((await call("episode_close", { episode })).state).toEqual(["a"]);
    expect(store.asked).toEqual(["forkMany r1 3", "close r2", "close r1"]);
    expect([...store.states.keys()]).toEqual(["r3", "r4"]);
  });

  it("drops an idle episode's remote state, and every episode's on close()", async () => {
    const { env, store, call } = externalEnvironment(100);
    await call("episode_create", { config: {} });
    await waitFor(() => store.asked.includes("drop r1"), 5_000, "idle drop");
    const kept = externalEnvironment();
    await kept.call("episode_create", { config: {} });
    await kept.call("episode_create", { config: {} });
    kept.env.close();
    await waitFor(() => kept.store.states.size === 0, 5_000, "drop on close()");
    expect(kept.store.asked.sort()).toEqual(["drop r1", "drop r2"]);
    expect(env.liveEpisodes()).toBe(0);
  });
});

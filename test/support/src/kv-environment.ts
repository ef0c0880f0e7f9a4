// A key-value store environment, each episode its own store: node kv-environment.ts [--stdio | --http PORT]
import { setTimeout as delay } from "node:timers/promises";
import { createToolServer, defineEnvironment, serveFromArgs } from "@rlfactory/toolkit";
import { z } from "zod";

export const kv = defineEnvironment<Record<string, string>>({
  name: "kv",
  create: (config) => ({ ...(config.initial as Record<string, string> | undefined) }),
  fork: (state) => ({ ...state }),
  snapshot: (state) => state,
  maxEpisodes: 256, // live at once; creating more is a tool error
  idleTimeoutMs: 300_000, // an episode with no operation for this long is dropped
  tools: (tool) => [
    tool({
      name: "put",
      description: "Sets key to value",
      input: z.object({ key: z.string(), value: z.string() }),
      handler: async ({ key, value }, state) => {
        state[key] = value;
        return { ok: true };
      },
    }),
    tool({
      name: "get",
      description: "The value of key (null when unset)",
      input: z.object({ key: z.string() }),
      handler: async ({ key }, state) => ({ value: state[key] ?? null }),
    }),
    tool({
      name: "append",
      description: "Appends value to key's value, after delay_ms of simulated work",
      input: z.object({ key: z.string(), value: z.string(), delay_ms: z.number().int().min(0).default(0) }),
      handler: async ({ key, value, delay_ms }, state) => {
        await delay(delay_ms);
        state[key] = (state[key] ?? "") + value;
        return { value: state[key] };
      },
    }),
  ],
});

const server = createToolServer({ name: kv.name, version: "1.0.0", tools: kv.tools });
if (process.argv[1] === import.meta.filename) await serveFromArgs(server, process.argv.slice(2));

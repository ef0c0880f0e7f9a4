// A PythonEnvironmentHost as an MCP environment server: defineEnvironment over state that lives in the
// host's workers (the episode's state in this process is the host's handle). The wire contract is the
// toolkit's (docs/environments.md): random handles, limits and idle expiry, one operation at a time
// per episode. A handle the host no longer holds (its worker died, or never created) answers the
// contract's "unknown episode" tool error, which the gateway turns into EPISODE_LOST.

import { STATE_TOO_LARGE_PREFIX, UNKNOWN_EPISODE_PREFIX } from "@rlfactory/proto/environment-contract";
import {
  defineEnvironment,
  type Environment,
  type EpisodeLimits,
  logger,
  type RawToolResult,
  ToolError,
} from "@rlfactory/toolkit";
import { EnvironmentError } from "./environment-error.ts";
import type { PythonEnvironmentHost } from "./python-environment-host.ts";

export interface PythonEnvironmentOptions extends EpisodeLimits {
  /** The server's name. */
  name: string;
  /**
   * With one class: the state is that instance's public attributes (not `{ClassName: ...}`), as the
   * config is its constructor's keyword arguments.
   */
  unwrapClass?: string;
  /** The episode state shown for a snapshot (default: as above). */
  state?: (snapshot: Record<string, Record<string, unknown>>) => unknown;
  /**
   * What a tool's JSON value goes back as (default: a string as its text, an object as structured
   * content, anything else as its JSON text).
   */
  result?: (value: unknown) => string | Record<string, unknown> | RawToolResult;
}

/** Maps the host's failures onto the contract: lost or unknown handles → "unknown episode", else one line. */
async function contract<T>(handle: string | undefined, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (error) {
    if (!(error instanceof EnvironmentError)) throw error;
    if (error.code === "EPISODE_LOST" || error.code === "UNKNOWN_EPISODE")
      throw new ToolError(`${UNKNOWN_EPISODE_PREFIX} ${JSON.stringify(handle)} (${error.message})`);
    if (error.code === "ANSWER_TOO_LARGE") throw new ToolError(`${STATE_TOO_LARGE_PREFIX}: ${error.message}`);
    throw new ToolError(`${error.code}: ${error.message.split("\n")[0]}`);
  }
}

export function pythonEnvironment(
  host: PythonEnvironmentHost,
  options: PythonEnvironmentOptions,
): Environment {
  const { name, unwrapClass, state: stateOf, result: resultOf, ...limits } = options;
  // A worker that exits takes its episodes with it, and one that cannot start again (a bundle file
  // edited since it was served, ...) leaves its slot empty: both go to the log, not only to callers.
  const log = logger.child({ server: name });
  host.on("worker", (event) =>
    event.kind === "exited"
      ? log.warn(
          { slot: event.slot, lost_episodes: event.lostEpisodes, reason: event.reason },
          "environment worker exited",
        )
      : log.error(
          { slot: event.slot, reason: event.reason },
          "environment worker could not be started again",
        ),
  );
  const state =
    stateOf ??
    ((s: Record<string, Record<string, unknown>>): unknown =>
      unwrapClass === undefined ? s : (s[unwrapClass] ?? {}));
  return defineEnvironment<string>({
    name,
    ...limits,
    // An episode lives in one worker, which answers its requests in the order they were written.
    pipeline: true,
    create: (config) => contract(undefined, () => host.create(config)),
    fork: async (h) => (await contract(h, () => host.fork(h, 1)))[0] as string,
    forkMany: (h, count) => contract(h, () => host.fork(h, count)),
    snapshot: async (h) => state(await contract(h, () => host.snapshot(h))),
    close: async (h) => state(await contract(h, () => host.close(h))),
    drop: (h) => void host.close(h).catch(() => {}),
    tools: (_tool, jsonTool) =>
      host.tools().map((t) =>
        jsonTool({
          name: t.name,
          description: t.description,
          inputSchema: t.inputSchema,
          handler: async (args, h) => {
            const result = await contract(h, () => host.call(h, t.name, args));
            if (!result.ok) throw new ToolError(`${result.error.code}: ${result.error.message}`);
            const value = result.value;
            if (resultOf !== undefined) return resultOf(value);
            // A string is the text itself (never JSON-quoted); an object is the structured result;
            // anything else goes back as its JSON text.
            if (typeof value === "string") return value;
            if (typeof value === "object" && value !== null && !Array.isArray(value))
              return value as Record<string, unknown>;
            return JSON.stringify(value ?? null);
          },
        }),
      ),
  });
}

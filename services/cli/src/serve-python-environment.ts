// How `rlf env python|gym|textarena|openenv|verifiers|serve` end: the started Python host as an MCP
// environment server (@rlfactory/environments' pythonEnvironment), on stdio or HTTP as the command's
// `--stdio` / `--http PORT` / `--host HOST` say, with the episode limits its flags set.
import type { PythonEnvironmentHost } from "@rlfactory/environments";
import { type PythonEnvironmentOptions, pythonEnvironment } from "@rlfactory/environments/python-environment";
import { positiveIntArg, UsageError } from "@rlfactory/kit/command-line";
import { createToolServer, serveFromArgs } from "@rlfactory/toolkit";

/** The transport and episode-limit flags every environment command takes. */
export interface ServeFlags {
  stdio?: boolean | undefined;
  http?: string | undefined;
  host?: string | undefined;
  "max-episodes"?: string | undefined;
  "idle-timeout-ms"?: string | undefined;
}

/** The episode limits the flags set. */
export interface EpisodeLimitFlags {
  maxEpisodes?: number;
  idleTimeoutMs?: number;
}

/**
 * Checks the transport and episode-limit flags before a Python host is started: a command line that
 * names no transport, or a limit that is no positive integer, is a usage error.
 */
export function checkServeFlags(flags: ServeFlags): EpisodeLimitFlags {
  if (flags.stdio !== true && flags.http === undefined) throw new UsageError("choose --stdio or --http PORT");
  const maxEpisodes = positiveIntArg(flags["max-episodes"], "--max-episodes");
  const idleTimeoutMs = positiveIntArg(flags["idle-timeout-ms"], "--idle-timeout-ms");
  return { ...(maxEpisodes ? { maxEpisodes } : {}), ...(idleTimeoutMs ? { idleTimeoutMs } : {}) };
}

/** Serves `host` (options with the limits checkServeFlags gave) until the process is stopped: -1, keep running. */
export async function servePythonEnvironment(
  host: PythonEnvironmentHost,
  options: PythonEnvironmentOptions,
  flags: ServeFlags,
): Promise<number> {
  const environment = pythonEnvironment(host, options);
  const server = createToolServer({ name: options.name, version: "1.0.0", tools: environment.tools });
  await serveFromArgs(server, [
    ...(flags.stdio === true ? ["--stdio"] : []),
    ...(flags.http !== undefined ? ["--http", flags.http] : []),
    ...(flags.host !== undefined ? ["--host", flags.host] : []),
  ]);
  return -1;
}

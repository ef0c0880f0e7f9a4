// The process entry of a tool server: `--stdio` (default) or `--http PORT [--host H]`, with
// telemetry started from the OTEL_* environment and a clean exit (code 0) on SIGTERM/SIGINT or,
// for stdio, when the client closes stdin. This is what `rlf tool NAME ...` runs.
import { parseArgs } from "node:util";
import { startTelemetry } from "@rlfactory/telemetry";
import { z } from "zod";
import { logger } from "./logger.ts";
import type { ToolServer } from "./tool-server.ts";

export const SERVE_USAGE = "usage: [--stdio | --http PORT [--host HOST]]";

export type ServeMode = { transport: "stdio" } | { transport: "http"; port: number; host: string };

/** A command-line mistake in the serve flags (a CLI maps it to its usage exit code). */
export class ServeArgsError extends Error {
  override readonly name = "ServeArgsError";
}

const Port = z.coerce.number().int().min(0).max(65_535);

/** Parses the serve flags; throws a ServeArgsError carrying SERVE_USAGE on anything else. */
export function parseServeArgs(argv: readonly string[]): ServeMode {
  let values: { stdio?: boolean; http?: string; host?: string };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { stdio: { type: "boolean" }, http: { type: "string" }, host: { type: "string" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new ServeArgsError(`${(error as Error).message}; ${SERVE_USAGE}`);
  }
  if (values.http === undefined) {
    if (values.host !== undefined) throw new ServeArgsError(`--host needs --http; ${SERVE_USAGE}`);
    return { transport: "stdio" };
  }
  if (values.stdio === true) throw new ServeArgsError(`choose one of --stdio and --http; ${SERVE_USAGE}`);
  const port = Port.safeParse(values.http);
  if (!port.success) throw new ServeArgsError(`invalid port ${JSON.stringify(values.http)}; ${SERVE_USAGE}`);
  return { transport: "http", port: port.data, host: values.host ?? "127.0.0.1" };
}

/**
 * Serves `server` as this process's job. Resolves once serving has started (for HTTP, after the
 * `listening` log line, which carries the URL, on stderr); the process then runs until it exits
 * by itself with code 0.
 */
export async function serveFromArgs(server: ToolServer, argv: readonly string[]): Promise<void> {
  const mode = parseServeArgs(argv);
  const telemetry = await startTelemetry({ serviceName: `rlf-tool-${server.name}` });
  const log = logger.child({ server: server.name });

  let stopping = false;
  const stop = (reason: string, drain: () => Promise<void>) => {
    if (stopping) {
      log.warn({ reason }, "forced exit");
      process.exit(1);
    }
    stopping = true;
    log.info({ reason }, "shutting down");
    drain()
      .catch((error: unknown) => log.error({ err: error }, "shutdown failed"))
      .then(() => telemetry.shutdown())
      .finally(() => process.exit(0));
  };

  if (mode.transport === "stdio") {
    const done = server.serveStdio();
    for (const signal of ["SIGTERM", "SIGINT"] as const)
      process.on(signal, () => stop(signal, async () => {}));
    void done.then(() => stop("stdin closed", async () => {}));
    return;
  }
  const serving = await server.serveHttp({ port: mode.port, host: mode.host });
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => stop(signal, serving.close));
  log.info({ url: serving.url, port: serving.port }, "listening");
}

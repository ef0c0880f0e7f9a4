// How a bundled tool server is listed for `rlf tool NAME`: its own command-line options (beside the
// serve flags --stdio / --http / --host, which the CLI handles) and a factory taking their values.
import type { ParseArgsOptionsConfig } from "node:util";
import type { ToolServer } from "@rlfactory/toolkit";

export type ToolOptionValues = Record<string, string | boolean | string[] | boolean[] | undefined>;

export interface ToolServerEntry {
  /** One line for `rlf tool --help`. */
  summary: string;
  /** Server-specific flags, in node:util parseArgs form (e.g. search's `--corpus`). */
  options: ParseArgsOptionsConfig;
  /** Usage text for the server-specific flags, e.g. "[--corpus FILE]". */
  usage: string;
  /** Extra flags `rlf stack` runs this server with (e.g. code's --sandbox-optional). */
  stackArgs?: readonly string[];
  create(values: ToolOptionValues): ToolServer | Promise<ToolServer>;
}

/** A tool server bundled with rlfactory: its entry and the fixed loopback port `rlf stack` serves it on. */
export interface BundledToolServer extends ToolServerEntry {
  /** The server's port in `rlf stack`, deploy/compose.yaml, deploy/k8s and the gateway configs. */
  readonly port: number;
}

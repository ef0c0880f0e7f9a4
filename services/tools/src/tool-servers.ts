// The bundled tool servers by name, each with its fixed loopback port: the one place both live.
// `rlf tool NAME [options] [--stdio | --http PORT]` and `rlf stack` read it; deploy/compose.yaml,
// deploy/k8s/tool-*.yaml and every gateway config are checked against it (test/deploy/manifests.test.ts).
// Adding a server is its folder (with its entry) plus one line here, and its case in
// bundled-server-contract.test.ts (which the typecheck then demands). Importing this file loads the
// entries only (flags and summaries); a server's code loads when its entry creates one.
import { calculatorServerEntry } from "./calculator/calculator-entry.ts";
import { codeServerEntry } from "./code/code-entry.ts";
import { imageServerEntry } from "./image/image-entry.ts";
import { searchServerEntry } from "./search/search-entry.ts";
import { sqlServerEntry } from "./sql/sql-entry.ts";
import type { BundledToolServer, ToolServerEntry } from "./tool-server-entry.ts";

export const toolServers = Object.freeze({
  search: { ...searchServerEntry, port: 7001 },
  calculator: { ...calculatorServerEntry, port: 7002 },
  code: { ...codeServerEntry, port: 7003 },
  sql: { ...sqlServerEntry, port: 7004 },
} as const satisfies Record<string, BundledToolServer>);

/** A bundled tool server's name (`rlf tool NAME`; also its MCP server name and the gateway's upstream name). */
export type BundledToolServerName = keyof typeof toolServers;

export const BUNDLED_TOOL_SERVER_NAMES = Object.freeze(Object.keys(toolServers)) as readonly [
  BundledToolServerName,
  ...BundledToolServerName[],
];

/**
 * Bundled servers that `rlf tool NAME` runs but `rlf stack` and the deploy files do not serve: no fixed
 * port, no upstream in the shipped gateway configs. `image` stays here until the rollout's
 * vision-language path, which needs it, is part of the stack.
 */
export const onDemandToolServers = Object.freeze({
  image: imageServerEntry,
} as const satisfies Record<string, ToolServerEntry>);

/** An on-demand server's name (`rlf tool NAME`; also its MCP server name). */
export type OnDemandToolServerName = keyof typeof onDemandToolServers;

/** Every server `rlf tool NAME` runs: the stack's, then the on-demand ones. */
export const TOOL_SERVER_NAMES = Object.freeze([
  ...BUNDLED_TOOL_SERVER_NAMES,
  ...Object.keys(onDemandToolServers),
]) as readonly (BundledToolServerName | OnDemandToolServerName)[];

/** The server `rlf tool NAME` runs, or undefined (an own entry only: `__proto__` is no server). */
export function bundledToolServer(name: string): ToolServerEntry | undefined {
  if (Object.hasOwn(toolServers, name)) return toolServers[name as BundledToolServerName];
  return Object.hasOwn(onDemandToolServers, name)
    ? onDemandToolServers[name as OnDemandToolServerName]
    : undefined;
}

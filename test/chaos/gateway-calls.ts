// Calls through a gateway as the fault scenarios count them: every call either answers (a ToolResult
// with its error_code) or is lost (the RPC itself failed) or hangs (no answer within a guard time).
import type { GatewayClient } from "@rlfactory/clients";
import type { ToolCall } from "@rlfactory/proto/types/ToolCall";
import { readyz } from "@rlfactory/test-support/gateway-harness";

export type CallOutcome =
  | { kind: "answered"; code: string; isError: boolean; text: string }
  | { kind: "lost"; error: string }
  | { kind: "hung" };

/** Makes one call and classifies what came back within `guardMs`. */
export async function callWithin(
  client: GatewayClient,
  call: ToolCall,
  guardMs: number,
): Promise<CallOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<CallOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "hung" }), guardMs);
  });
  const answer = client.callTool(call).then(
    (r): CallOutcome => ({
      kind: "answered",
      code: String(r.error_code),
      isError: r.is_error,
      text: r.error_message || (r.content[0]?.text?.text ?? ""),
    }),
    (err: Error): CallOutcome => ({ kind: "lost", error: err.message }),
  );
  try {
    return await Promise.race([answer, guard]);
  } finally {
    clearTimeout(timer);
  }
}

/** "OK: 30, TIMEOUT: 2, lost: 0, hung: 0" */
export function tally(outcomes: readonly CallOutcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) {
    const key = o.kind === "answered" ? o.code : o.kind;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

export function describeCounts(counts: Record<string, number>): string {
  const entries = Object.entries(counts);
  return entries.length === 0 ? "none" : entries.map(([k, v]) => `${k}: ${v}`).join(", ");
}

/** The first upstream's breaker and state, from the gateway's /readyz. */
export async function upstreamState(adminUrl: string): Promise<{ state: string; breaker: string }> {
  const u = (await readyz(adminUrl)).upstreams[0];
  return { state: u?.state ?? "missing", breaker: u?.breaker ?? "missing" };
}

/** The testbed server's process id (its `pid` tool). */
export async function testbedPid(client: GatewayClient): Promise<number> {
  const r = await client.callTool({ name: "testbed__pid", arguments_json: "{}" });
  if (r.error_code !== "OK") throw new Error(`testbed__pid answered ${r.error_code}: ${r.error_message}`);
  return (JSON.parse(r.structured_content_json) as { pid: number }).pid;
}

// `rlf rollout serve` started before its gateway (a stack coming up, a gateway restarting): instead
// of exiting, it asks the gateway for its catalog until it answers, with a log line saying what it is
// waiting for. Only "nothing answers yet" is waited out (UNAVAILABLE, a deadline); any other answer
// (a wrong API key, say) is the operator's to fix and fails at once.

import { status as grpcStatus } from "@grpc/grpc-js";
import { GatewayClient } from "@rlfactory/clients";
import type { Logger } from "pino";

export interface WaitForGatewayOptions {
  apiKey?: string;
  log: Logger;
  /** Between tries (default 2000 ms). */
  intervalMs?: number;
  /** Stops waiting (Ctrl-C): rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Resolves once the gateway at `address` lists its tools; returns how many tries that took. */
export async function waitForGateway(address: string, options: WaitForGatewayOptions): Promise<number> {
  const intervalMs = options.intervalMs ?? 2_000;
  const client = new GatewayClient(address, {
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    rpcTimeoutMs: Math.max(intervalMs, 5_000),
  });
  try {
    for (let tries = 1; ; tries++) {
      options.signal?.throwIfAborted();
      try {
        await client.listTools();
        if (tries > 1) options.log.info({ gateway: address, tries }, `the gateway at ${address} is up`);
        return tries;
      } catch (err) {
        const code = (err as { code?: number }).code;
        if (code !== grpcStatus.UNAVAILABLE && code !== grpcStatus.DEADLINE_EXCEEDED) throw err;
        // The first miss, then one line every ~30 s: enough to see it is still waiting.
        if (tries === 1 || tries % Math.max(1, Math.round(30_000 / intervalMs)) === 0) {
          options.log.warn(
            { gateway: address, tries, reason: (err as Error).message },
            `waiting for the gateway at ${address}: not up yet (${(err as { details?: string }).details || (err as Error).message}); retrying every ${intervalMs} ms`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
      }
    }
  } finally {
    client.close();
  }
}

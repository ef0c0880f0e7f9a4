// Fault injection for client tests: the first `failFirst` generate requests, then a seeded `failRate`
// share of the rest, are answered 503 before any generation (as an overloaded or restarting engine would).
import { hash32, rngStream } from "@rlfactory/kit";

export interface FaultInjector {
  /** For each generate request in arrival order: why it fails, or undefined. */
  next(): string | undefined;
}

export function createFaultInjector(options: {
  failFirst: number;
  failRate: number;
  seed: number;
}): FaultInjector {
  const random = rngStream(hash32("faults", options.seed));
  let seen = 0;
  return {
    next() {
      seen += 1;
      const draw = random(); // drawn every time, so the failRate pattern does not depend on failFirst
      if (seen <= options.failFirst) {
        return `simulated failure: request ${seen} of the first ${options.failFirst} (--fail-first)`;
      }
      if (draw < options.failRate) return `simulated failure (--fail-rate ${options.failRate})`;
      return undefined;
    },
  };
}

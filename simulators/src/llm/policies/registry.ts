// Policy by name: the `--policy` values.
import { conversePolicy } from "./converse.ts";
import { keepSearchingPolicy } from "./keep-searching.ts";
import { malformedPolicy } from "./malformed.ts";
import { parallelCallsPolicy } from "./parallel-calls.ts";
import type { Policy } from "./policy.ts";
import { ramblePolicy } from "./ramble.ts";
import { replayPolicy } from "./replay.ts";
import { researchPolicy } from "./research.ts";
import { searchR1Policy } from "./search-r1.ts";
import { searchThenAnswerPolicy } from "./search-then-answer.ts";
import { solvePolicy } from "./solve.ts";

const POLICIES: readonly Policy[] = [
  searchThenAnswerPolicy,
  searchR1Policy,
  parallelCallsPolicy,
  malformedPolicy,
  keepSearchingPolicy,
  ramblePolicy,
  conversePolicy,
  replayPolicy,
  solvePolicy,
  researchPolicy,
];

export const SIMULATED_POLICY_NAMES: readonly string[] = Object.freeze(POLICIES.map((p) => p.name));

export function simulatedPolicy(name: string): Policy {
  const found = POLICIES.find((p) => p.name === name);
  if (found === undefined) {
    throw new Error(`unknown simulated policy "${name}" (known: ${SIMULATED_POLICY_NAMES.join(", ")})`);
  }
  return found;
}

/** `name  summary` lines for usage text. */
export function describePolicies(): string {
  return POLICIES.map((p) => `  ${p.name.padEnd(20)} ${p.summary}`).join("\n");
}

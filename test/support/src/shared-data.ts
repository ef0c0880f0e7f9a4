// Datasets that tests read but the repository does not ship (HotpotQA dev, Spider, the Search-R1
// example corpus, NQ, Bamboogle): one place says where they are and what happens when they are not.
//
// Where: `$RLF_SHARED_DATA`, else `../shared/data` next to the repository checkout.
// Missing: under CI (`CI` set) a test that needs them fails loudly; elsewhere it is skipped with
// one warning line naming the path, so a fresh clone's `npm test` still runs everything else.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** The folder holding the shared datasets. */
export const SHARED_DATA = process.env.RLF_SHARED_DATA ?? resolve(ROOT, "../shared/data");

/** The absolute path of a shared dataset file or folder (`"hotpotqa/dev.jsonl"`). */
export function sharedDataPath(relative: string): string {
  return join(SHARED_DATA, relative);
}

/**
 * Whether every given shared dataset path exists. When one is missing: throws under CI (the test
 * file fails, naming the path), else warns once for `what` and returns false (use it with
 * `describe.skipIf(!haveSharedData(...))`).
 */
export function haveSharedData(what: string, ...relatives: string[]): boolean {
  const missing = relatives.map(sharedDataPath).filter((p) => !existsSync(p));
  if (missing.length === 0) return true;
  const message = `${what}: shared test data missing at ${missing.join(", ")} (set RLF_SHARED_DATA to its folder)`;
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

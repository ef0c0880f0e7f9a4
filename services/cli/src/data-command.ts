// `rlf data hotpotqa --in FILE --out CORPUS.jsonl`: dataset preparation.
import { parseArgs } from "node:util";
import { buildHotpotqaCorpus } from "@rlfactory/tools";
import { UsageError } from "./usage-error.ts";

export async function runDataCommand(argv: string[]): Promise<number> {
  const [kind, ...rest] = argv;
  if (kind !== "hotpotqa") throw new UsageError(`rlf data needs a dataset: hotpotqa (got "${kind ?? ""}")`);
  const { values } = parseArgs({
    args: rest,
    options: { in: { type: "string" }, out: { type: "string" } },
    strict: true,
  });
  if (!values.in || !values.out)
    throw new UsageError("rlf data hotpotqa needs --in FILE and --out CORPUS.jsonl");
  const { passages } = await buildHotpotqaCorpus(values.in, values.out);
  process.stderr.write(`rlf data hotpotqa: wrote ${passages} passages to ${values.out}\n`);
  return 0;
}

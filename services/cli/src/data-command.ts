// `rlf data hotpotqa --in FILE --out CORPUS.jsonl` and `rlf data bfcl --in FILE --answers FILE --out
// TASKS.jsonl`: dataset preparation; `rlf data ftrl` and `rlf data export` live in their own files.
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { convertBfclTasks } from "@rlfactory/rollout";
import { buildHotpotqaCorpus } from "@rlfactory/tools";
import { UsageError } from "./usage-error.ts";

export async function runDataCommand(argv: string[]): Promise<number> {
  const [kind, ...rest] = argv;
  if (kind === "hotpotqa") return runHotpotqa(rest);
  if (kind === "bfcl") return runBfcl(rest);
  if (kind === "ftrl") return (await import("./data-ftrl-command.ts")).runDataFtrlCommand(rest);
  if (kind === "export") return (await import("./data-export-command.ts")).runDataExportCommand(rest);
  throw new UsageError(`rlf data needs a dataset (hotpotqa, bfcl, ftrl) or export (got "${kind ?? ""}")`);
}

function flags<const O extends Record<string, { type: "string" }>>(
  command: string,
  args: string[],
  options: O,
) {
  try {
    return parseArgs({ args, options, strict: true }).values as Partial<Record<keyof O, string>>;
  } catch (err) {
    throw new UsageError(`${command}: ${(err as Error).message}`);
  }
}

async function runHotpotqa(args: string[]): Promise<number> {
  const values = flags("rlf data hotpotqa", args, { in: { type: "string" }, out: { type: "string" } });
  if (!values.in || !values.out)
    throw new UsageError("rlf data hotpotqa needs --in FILE and --out CORPUS.jsonl");
  const { passages } = await buildHotpotqaCorpus(values.in, values.out);
  process.stderr.write(`rlf data hotpotqa: wrote ${passages} passages to ${values.out}\n`);
  return 0;
}

async function runBfcl(args: string[]): Promise<number> {
  const values = flags("rlf data bfcl", args, {
    in: { type: "string" },
    answers: { type: "string" },
    out: { type: "string" },
    "func-docs": { type: "string" },
    server: { type: "string" },
  });
  if (!values.in || !values.answers || !values.out) {
    throw new UsageError(
      "rlf data bfcl needs --in BFCL_v4_multi_turn_*.json, --answers possible_answer/<same>.json and --out TASKS.jsonl",
    );
  }
  const tasks = await convertBfclTasks({
    questions: values.in,
    answers: values.answers,
    funcDocs: values["func-docs"] ?? join(dirname(values.in), "multi_turn_func_doc"),
    ...(values.server === undefined ? {} : { server: values.server }),
  });
  await writeFile(values.out, tasks.map((t) => `${JSON.stringify(t)}\n`).join(""));
  process.stderr.write(`rlf data bfcl: wrote ${tasks.length} tasks to ${values.out}\n`);
  return 0;
}

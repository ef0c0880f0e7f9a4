// `rlf data hotpotqa --in FILE --out CORPUS.jsonl` and `rlf data bfcl --in FILE --answers FILE --out
// TASKS.jsonl`: dataset preparation; `rlf data ftrl` and `rlf data export` live in their own files.
// Each loads only its own converter (not the search server or the rollout engine around it).
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { UsageError } from "@rlfactory/kit/command-line";

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

export async function runHotpotqa(args: string[]): Promise<number> {
  const values = flags("rlf data hotpotqa", args, { in: { type: "string" }, out: { type: "string" } });
  if (!values.in || !values.out)
    throw new UsageError("rlf data hotpotqa needs --in FILE and --out CORPUS.jsonl");
  const { buildHotpotqaCorpus } = await import("@rlfactory/tools/hotpotqa-corpus");
  const { passages } = await buildHotpotqaCorpus(values.in, values.out);
  process.stderr.write(`rlf data hotpotqa: wrote ${passages} passages to ${values.out}\n`);
  return 0;
}

export async function runBfcl(args: string[]): Promise<number> {
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
  const { convertBfclTasks } = await import("@rlfactory/rollout/bfcl-tasks");
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

// `rlf data ftrl --in TASKS --bundle BUNDLE --out TASKS.jsonl [--server NAME] [--data-source NAME]
// [--system FILE]`: FTRL task rows (per-sample, or τ-bench-style instruction + actions) as rollout
// tasks running in episodes of the bundle's server (`rlf env serve BUNDLE`, named --server, default ftrl).
import { readFile, writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { taskSchema } from "@rlfactory/contracts";
import { convertFtrlTasks, FtrlFormatError, readBundle } from "@rlfactory/environments";
import { UsageError } from "@rlfactory/kit/command-line";

export async function runDataFtrlCommand(argv: string[]): Promise<number> {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        in: { type: "string" },
        bundle: { type: "string" },
        out: { type: "string" },
        server: { type: "string" },
        "data-source": { type: "string" },
        system: { type: "string" },
      },
      strict: true,
    }));
  } catch (err) {
    throw new UsageError(`${(err as Error).message}`);
  }
  if (!values.in || !values.bundle || !values.out)
    throw new UsageError(`rlf data ftrl needs --in, --bundle and --out`);
  const bundle = await readBundle(values.bundle);
  const system = values.system === undefined ? undefined : await readFile(values.system, "utf8");
  let tasks: Awaited<ReturnType<typeof convertFtrlTasks>>;
  try {
    tasks = await convertFtrlTasks(values.in, bundle, {
      ...(values.server !== undefined ? { server: values.server } : {}),
      ...(values["data-source"] !== undefined ? { dataSource: values["data-source"] } : {}),
      ...(system !== undefined ? { system } : {}),
    });
  } catch (err) {
    if (err instanceof FtrlFormatError) throw new UsageError(`rlf data ftrl: ${err.message}`);
    throw err;
  }
  for (const task of tasks) {
    const checked = taskSchema.safeParse(task);
    if (!checked.success)
      throw new UsageError(
        `rlf data ftrl: task ${task.id} is not a valid rollout task: ${checked.error.issues[0]?.message}`,
      );
  }
  await writeFile(values.out, tasks.map((t) => `${JSON.stringify(t)}\n`).join(""));
  process.stderr.write(`rlf data ftrl: wrote ${tasks.length} tasks to ${values.out}\n`);
  return 0;
}

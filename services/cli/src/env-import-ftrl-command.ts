// `rlf env import-ftrl PATH --out BUNDLE [--tasks FILE] [--data-source NAME] [--name NAME]`: FTRL's
// published formats, unchanged, as an environment bundle — a per-sample file (form "sample") or an
// environment directory (tools.json, codes.json, database files; form "environment").
import { parseArgs } from "node:util";
import { FtrlFormatError, importFtrl, writeBundle } from "@rlfactory/environments";
import { UsageError } from "@rlfactory/kit/command-line";

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        out: { type: "string" },
        tasks: { type: "string" },
        "data-source": { type: "string" },
        name: { type: "string" },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}`);
  }
}

export async function runEnvImportFtrlCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv);
  if (positionals.length !== 1 || values.out === undefined)
    throw new UsageError(`rlf env import-ftrl needs PATH and --out BUNDLE`);
  try {
    const content = await importFtrl(positionals[0] as string, {
      ...(values.tasks !== undefined ? { tasks: values.tasks } : {}),
      ...(values["data-source"] !== undefined ? { dataSource: values["data-source"] } : {}),
      ...(values.name !== undefined ? { name: values.name } : {}),
    });
    const manifest = await writeBundle(values.out, content);
    process.stderr.write(
      `rlf env import-ftrl: wrote bundle ${manifest.name} (form ${manifest.form}, ${content.tools.length} tools, ${content.tasks.length} tasks) to ${values.out}, ${manifest.hash}\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof FtrlFormatError) throw new UsageError(`rlf env import-ftrl: ${err.message}`);
    throw err;
  }
}

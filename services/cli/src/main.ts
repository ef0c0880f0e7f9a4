// `rlf`: the one entry point of every rlfactory service.
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { UsageError } from "@rlfactory/kit/command-line";
import { findCommand } from "./commands.ts";
import { asksForHelp, commandHelp, mainUsage } from "./help.ts";

export async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  // Outside the command table: where the simulators went.
  switch (command) {
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
      process.stdout.write(mainUsage());
      return command === undefined ? 2 : 0;
  }
  const found = findCommand(argv);
  if (found === undefined) throw new UsageError(`unknown command "${command}"`);
  const { command: cmd, path, rest: args } = found;
  // Help comes from the table, before the command's module is loaded.
  if (asksForHelp(args)) {
    process.stdout.write(commandHelp(cmd, path));
    if (cmd.moreHelp !== undefined) process.stdout.write(await cmd.moreHelp(args));
    return 0;
  }
  if (cmd.load === undefined) {
    const names = (cmd.subcommands ?? []).map((s) => s.name).join(", ");
    throw new UsageError(
      `rlf ${path.join(" ")} needs one of ${names}${args[0] === undefined ? "" : ` (got "${args[0]}")`}`,
    );
  }
  // Only the command that runs is loaded: `rlf tool calculator` does not load the gateway, and vice versa.
  return (await cmd.load())(args);
}

/** The help a usage mistake is printed with: its command's, else the main usage. */
function usageFor(argv: string[]): string {
  const found = findCommand(argv);
  return found === undefined ? mainUsage() : `Usage: ${commandHelp(found.command, found.path)}`;
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
        process.stderr.write(`rlf: ${err.message}\n\n${usageFor(argv)}`);
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

// What `rlf --help` and `rlf CMD [SUB] --help` print, made from the command table (commands.ts).
import { COMMANDS, type Command } from "./commands.ts";

const ENVIRONMENT = `Environment:
  RLF_API_KEY          API key sent as "authorization: Bearer KEY" by 'rlf tools' and 'rlf episodes'
  RLF_GATEWAY          the gateway 'rlf tools' and 'rlf episodes' call (default 127.0.0.1:50051)
  OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_*   OpenTelemetry export (off unless set)
  JUDGE_BASE_URL, JUDGE_MODEL, JUDGE_API_KEY   the judge's OpenAI-compatible backend (no --config)
  LOG_LEVEL            pino log level (default info)
`;

/** Every command and subcommand, parents first. */
export function allCommands(): { command: Command; path: string[] }[] {
  return COMMANDS.flatMap((c) => [
    { command: c, path: [c.name] },
    ...(c.subcommands ?? []).map((s) => ({ command: s, path: [c.name, s.name] })),
  ]);
}

const entry = (c: Command): string => `  rlf ${c.usage}\n      ${c.summary}\n`;

/** The main usage: each command's usage line and summary. */
export function mainUsage(): string {
  const lines = allCommands().map(({ command }) => entry(command));
  return `rlf — rlfactory command line

Usage: rlf COMMAND [SUBCOMMAND] [options]   ('rlf COMMAND [SUBCOMMAND] --help' shows its help)
${lines.join("")}
${ENVIRONMENT}`;
}

/** `rlf PATH --help`: its summary, usage, details and subcommands. */
export function commandHelp(command: Command, path: readonly string[]): string {
  const subs = command.subcommands ?? [];
  const parts = [`rlf ${command.usage}\n\n${command.summary}\n`];
  if (command.details !== undefined) parts.push(`\n${command.details}\n`);
  if (subs.length > 0)
    parts.push(
      `\nSubcommands ('rlf ${path.join(" ")} SUBCOMMAND --help' for each):\n${subs.map(entry).join("")}`,
    );
  return parts.join("");
}

/** Whether `args` ask for help: -h or --help before a `--` (what follows `--` belongs to another program). */
export function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

// Command-line plumbing shared by every `rlf` command and the development simulators: a usage mistake
// (printed with the usage text, exit code 2), port flags, and a clean stop on SIGINT/SIGTERM.

/** A mistake in the command line: printed with the usage text, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** `text` as a port number, else a UsageError naming `flag`. */
export function portArg(text: string, flag: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`${flag} must be a port number`);
  return port;
}

/** `text` as a positive integer (undefined when the flag was not given), else a UsageError naming `flag`. */
export function positiveIntArg(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive integer`);
  return n;
}

/** Runs `stop` once on SIGINT/SIGTERM, then exits; a second signal exits at once. */
export function stopOnSignals(stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stderr.write(`rlf: ${signal}, shutting down\n`);
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`rlf: shutdown failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

// What the rlf-sim commands share: the usage error (printed with the usage, exit 2), the port flag and
// the shutdown on SIGINT/SIGTERM.

/** A mistake in the command line: printed with the usage text, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** A `--port` value: an integer 0..65535 (0 = any free port). */
export function portArg(text: string, flag: string): number {
  const port = Number(text);
  if (text.trim() === "" || !Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`${flag} must be a port number`);
  return port;
}

/** Runs `stop` once on SIGINT/SIGTERM, then exits; a second signal exits at once. */
export function stopOnSignals(stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stderr.write(`rlf-sim: ${signal}, shutting down\n`);
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`rlf-sim: shutdown failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

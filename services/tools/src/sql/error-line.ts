// An error as a caller sees it: the first line of its message, bounded, without host paths.
import { withoutHostPaths } from "./host-paths.ts";

const MAX_MESSAGE = 300;

export function errorLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = withoutHostPaths((message.split("\n")[0] ?? message).trim());
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE - 3)}...` : line;
}

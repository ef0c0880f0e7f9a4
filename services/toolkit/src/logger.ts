// Structured logs for tool servers, always on stderr: stdout is the stdio MCP transport.
import { pino } from "pino";

export type Logger = pino.Logger;

export const logger: Logger = pino(
  { name: "rlf-toolkit", level: process.env.LOG_LEVEL ?? "info" },
  pino.destination({ dest: 2, sync: true }),
);

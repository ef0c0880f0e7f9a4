// OTel's own diagnostics, on stderr. The SDK's default console logger writes `info`/`debug` to
// stdout, which would corrupt a stdio MCP transport.
import type { DiagLogger } from "@opentelemetry/api";

function write(level: string, message: string, args: unknown[]): void {
  const extra =
    args.length > 0 ? ` ${args.map((a) => (a instanceof Error ? a.message : String(a))).join(" ")}` : "";
  process.stderr.write(`otel ${level}: ${message}${extra}\n`);
}

export const stderrDiagLogger: DiagLogger = {
  error: (message, ...args) => write("error", message, args),
  warn: (message, ...args) => write("warn", message, args),
  info: (message, ...args) => write("info", message, args),
  debug: (message, ...args) => write("debug", message, args),
  verbose: (message, ...args) => write("verbose", message, args),
};

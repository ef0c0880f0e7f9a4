// How `rlf tool calculator` is listed and started: its flags, and a factory that loads the server (and
// mathjs) only when one is created.
import { z } from "zod";
import type { ToolServerEntry } from "../tool-server-entry.ts";

const wholeNumber = (flag: string, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `${flag} must be a whole number`)
    .transform(Number)
    .pipe(z.number().int().min(1).max(max))
    .optional();

const CalculatorFlags = z.object({
  workers: wholeNumber("--workers", 64),
  "per-caller": wholeNumber("--per-caller", 64),
  "timeout-ms": wholeNumber("--timeout-ms", 600_000),
});

export const calculatorServerEntry: ToolServerEntry = {
  summary: "safe arithmetic and math functions (mathjs, restricted), evaluated in a worker pool",
  options: {
    workers: { type: "string" },
    "per-caller": { type: "string" },
    "timeout-ms": { type: "string" },
  },
  usage: "[--workers N] [--per-caller N] [--timeout-ms MS]",
  create: (values) => {
    const flags = CalculatorFlags.safeParse(values);
    if (!flags.success) {
      throw new Error(flags.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
    }
    const workers = flags.data.workers;
    const timeoutMs = flags.data["timeout-ms"];
    const perCaller = flags.data["per-caller"];
    return import("./calculator-server.ts").then((m) =>
      m.createCalculatorServer({
        ...(workers !== undefined ? { workers } : {}),
        ...(perCaller !== undefined ? { perCaller } : {}),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      }),
    );
  },
};

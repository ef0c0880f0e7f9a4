// Messages between the calculator and its evaluation workers (tasks and answers of the worker pool).
import { z } from "zod";

/** How numbers are represented: IEEE doubles, exact fractions, or 64-digit decimals. */
export const NumberMode = z.enum(["number", "fraction", "bignumber"]);
export type NumberMode = z.infer<typeof NumberMode>;

export const EvaluationRequest = z.object({
  expression: z.string(),
  mode: NumberMode.default("number"),
});
export type EvaluationRequest = z.infer<typeof EvaluationRequest>;

/** The worker's JS heap in use (MiB, garbage included) when it answered. */
const heapUsedMb = z.number().nonnegative();

export const EvaluationReply = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), result: z.union([z.number(), z.string()]), heapUsedMb }),
  z.object({ ok: z.literal(false), error: z.string(), heapUsedMb }),
]);
export type EvaluationReply = z.infer<typeof EvaluationReply>;

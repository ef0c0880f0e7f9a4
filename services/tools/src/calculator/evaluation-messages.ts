// Messages between the calculator and its evaluation worker.
import { z } from "zod";

/** How numbers are represented: IEEE doubles, exact fractions, or 64-digit decimals. */
export const NumberMode = z.enum(["number", "fraction", "bignumber"]);
export type NumberMode = z.infer<typeof NumberMode>;

export const EvaluationRequest = z.object({
  id: z.number().int(),
  expression: z.string(),
  mode: NumberMode.default("number"),
});
export type EvaluationRequest = z.infer<typeof EvaluationRequest>;

/** The worker's JS heap in use (MiB, garbage included) when it answered or became ready. */
const heapUsedMb = z.number().nonnegative();

export const EvaluationReply = z.discriminatedUnion("ok", [
  z.object({
    id: z.number().int(),
    ok: z.literal(true),
    result: z.union([z.number(), z.string()]),
    heapUsedMb,
  }),
  z.object({ id: z.number().int(), ok: z.literal(false), error: z.string(), heapUsedMb }),
]);
export type EvaluationReply = z.infer<typeof EvaluationReply>;

/** Posted once by the worker when mathjs is loaded (every number mode) and it can take requests. */
export const WorkerReady = z.object({ ready: z.literal(true), heapUsedMb });
export type WorkerReady = z.infer<typeof WorkerReady>;

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

export const EvaluationReply = z.discriminatedUnion("ok", [
  z.object({ id: z.number().int(), ok: z.literal(true), result: z.union([z.number(), z.string()]) }),
  z.object({ id: z.number().int(), ok: z.literal(false), error: z.string() }),
]);
export type EvaluationReply = z.infer<typeof EvaluationReply>;

/** Posted once by the worker when mathjs is loaded and it can take requests. */
export const WorkerReady = z.object({ ready: z.literal(true) });

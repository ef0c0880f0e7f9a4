// Messages between the calculator and its evaluation worker.
import { z } from "zod";

export const EvaluationRequest = z.object({ id: z.number().int(), expression: z.string() });
export type EvaluationRequest = z.infer<typeof EvaluationRequest>;

export const EvaluationReply = z.discriminatedUnion("ok", [
  z.object({ id: z.number().int(), ok: z.literal(true), result: z.union([z.number(), z.string()]) }),
  z.object({ id: z.number().int(), ok: z.literal(false), error: z.string() }),
]);
export type EvaluationReply = z.infer<typeof EvaluationReply>;

/** Posted once by the worker when mathjs is loaded and it can take requests. */
export const WorkerReady = z.object({ ready: z.literal(true) });

// A rollout request on the wire: its JSON form (the HTTP body, what RolloutClient takes), validated by
// `rolloutRequestSchema`, and the rlfactory.v1.RolloutRequest message. Both wire forms go through the
// one schema, so gRPC and HTTP accept and reject exactly the same requests with the same messages; the
// client validates before sending, so a bad request fails locally with the server's message.

import { LOGPROBS_KINDS, policyVersionFromText, taskSchema } from "@rlfactory/contracts";
import type {
  RolloutRequest as ProtoRequest,
  RolloutRequest__Output as ProtoRequestOut,
} from "@rlfactory/proto/types/RolloutRequest";
import type { SamplingOverrides as ProtoSampling } from "@rlfactory/proto/types/SamplingOverrides";
import type { Task__Output as ProtoTaskOut } from "@rlfactory/proto/types/Task";
import { z } from "zod";
import { serverUrlSchema } from "./inference-server-url.ts";

/** The request as a whole is unusable (no tasks, an invalid task, group_size out of range, bad JSON). */
export class RolloutRequestError extends Error {
  override name = "RolloutRequestError";
}

/**
 * The inference engines a request's own servers may run: those that return token ids and logprobs
 * (trainable). The rollout engine's registry marks exactly these `trainable` (its engine contract test).
 */
export const REQUEST_ENGINE_NAMES = ["vllm", "sglang"] as const;

export const MAX_GROUP_SIZE = 1024;

/** Per-request overrides of the config's sampling parameters (the keys of `samplingParamsSchema`). */
export const samplingOverridesSchema = z.strictObject({
  temperature: z.number().min(0).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  top_k: z.number().int().optional(),
  min_p: z.number().min(0).max(1).optional(),
  max_tokens: z.number().int().positive().optional(),
  stop: z.array(z.string()).optional(),
  repetition_penalty: z.number().positive().optional(),
  seed: z.number().int().optional(),
});

export const rolloutRequestSchema = z
  .strictObject({
    tasks: z.array(taskSchema).min(1, "a rollout needs at least one task"),
    group_size: z
      .number()
      .int()
      .min(1, `must be between 1 and ${MAX_GROUP_SIZE}`)
      .max(MAX_GROUP_SIZE, `must be between 1 and ${MAX_GROUP_SIZE}`)
      .optional(),
    sampling: samplingOverridesSchema.optional(),
    max_turns: z.number().int().min(1, "must be at least 1").optional(),
    policy_version: z
      .union([z.number().int(), z.string().min(1)])
      .nullable()
      .optional(),
    /** The training engine's own inference servers for this request (default: the config's). */
    inference: z
      .strictObject({
        urls: z.array(serverUrlSchema).min(1, "needs at least one server URL"),
        engine: z.enum(REQUEST_ENGINE_NAMES).optional(),
        model: z.string().min(1).optional(),
        /** What these servers' logprobs are (`raw` | `processed`); default: the config's `inference.logprobs_mode`. */
        logprobs_mode: z.enum(LOGPROBS_KINDS).optional(),
      })
      .optional(),
  })
  .superRefine((req, ctx) => {
    const seen = new Map<string, number>();
    req.tasks.forEach((task, i) => {
      const first = seen.get(task.id);
      if (first !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["tasks", i, "id"],
          message: `"${task.id}" is also the id of tasks[${first}]; task ids must be unique`,
        });
      } else seen.set(task.id, i);
    });
  });

/** What a caller sends (defaults not applied yet): the HTTP body, and what RolloutClient takes. */
export type RolloutRequestInput = z.input<typeof rolloutRequestSchema>;

/** `tasks[1].prompt: a task needs ...; group_size: must be ...` (one line: it goes into gRPC details). */
export function describeRequestIssues(error: z.ZodError): string {
  const lines = error.issues.slice(0, 5).map((issue) => {
    const path = issue.path
      .map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
      .join("");
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  const more = error.issues.length > 5 ? `; and ${error.issues.length - 5} more` : "";
  return `invalid rollout request: ${lines.join("; ")}${more}`;
}

// --- the proto form -----------------------------------------------------------------------------

/** The JSON form of a RolloutRequest message, for `parseRolloutRequest` (JSON text fields parsed). */
export function requestFromProto(p: ProtoRequestOut): unknown {
  const s = p.sampling;
  const sampling =
    s === null
      ? undefined
      : {
          ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
          ...(s.top_p !== undefined ? { top_p: s.top_p } : {}),
          ...(s.top_k !== undefined ? { top_k: s.top_k } : {}),
          ...(s.min_p !== undefined ? { min_p: s.min_p } : {}),
          ...(s.max_tokens !== undefined ? { max_tokens: s.max_tokens } : {}),
          ...(s.stop.length > 0 ? { stop: s.stop } : {}),
          ...(s.repetition_penalty !== undefined ? { repetition_penalty: s.repetition_penalty } : {}),
          ...(s.seed !== undefined ? { seed: seedFromProto(s.seed) } : {}),
        };
  return {
    tasks: p.tasks.map(taskFromProto),
    ...(p.group_size !== undefined ? { group_size: p.group_size } : {}),
    ...(sampling !== undefined ? { sampling } : {}),
    ...(p.max_turns !== undefined ? { max_turns: p.max_turns } : {}),
    ...(p.policy_version !== undefined ? { policy_version: policyVersionFromText(p.policy_version) } : {}),
    ...(p.inference !== null
      ? {
          inference: {
            urls: p.inference.urls,
            ...(p.inference.engine !== "" ? { engine: p.inference.engine } : {}),
            ...(p.inference.model !== "" ? { model: p.inference.model } : {}),
            ...(p.inference.logprobs_mode !== "" ? { logprobs_mode: p.inference.logprobs_mode } : {}),
          },
        }
      : {}),
  };
}

function taskFromProto(t: ProtoTaskOut, i: number): Record<string, unknown> {
  const at = `tasks[${i}]`;
  return {
    id: t.id,
    ...(t.data_source !== "" ? { data_source: t.data_source } : {}),
    prompt: t.prompt.map((m, j) => ({
      ...(m.extra_json === "" ? {} : objectFromText(m.extra_json, `${at}.prompt[${j}].extra_json`)),
      role: m.role,
      content: m.content,
    })),
    ...(t.ground_truth_json !== ""
      ? { ground_truth: jsonFromText(t.ground_truth_json, `${at}.ground_truth_json`) }
      : {}),
    ...(t.extra_info_json !== ""
      ? { extra_info: objectFromText(t.extra_info_json, `${at}.extra_info_json`) }
      : {}),
    ...(t.tools !== null ? { tools: t.tools.names } : {}),
    ...(t.turns.length > 0
      ? {
          turns: t.turns.map((turn, j) => ({
            content: turn.content,
            ...(turn.tools !== null ? { tools: turn.tools.names } : {}),
            ...(turn.ground_truth_json !== ""
              ? { ground_truth: jsonFromText(turn.ground_truth_json, `${at}.turns[${j}].ground_truth_json`) }
              : {}),
          })),
        }
      : {}),
    ...(t.user_simulator !== null
      ? {
          user_simulator: {
            ...(t.user_simulator.extra_json === ""
              ? {}
              : objectFromText(t.user_simulator.extra_json, `${at}.user_simulator.extra_json`)),
            instruction: t.user_simulator.instruction,
          },
        }
      : {}),
    ...(t.environment !== null
      ? {
          environment: {
            server: t.environment.server,
            ...(t.environment.config_json !== ""
              ? { config: objectFromText(t.environment.config_json, `${at}.environment.config_json`) }
              : {}),
          },
        }
      : {}),
    ...(Object.keys(t.tool_aliases).length > 0 ? { tool_aliases: { ...t.tool_aliases } } : {}),
  };
}

/** int64 arrives as decimal text; only a safe integer is a usable seed. */
function seedFromProto(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n))
    throw new RolloutRequestError(`invalid rollout request: sampling.seed: ${text} is not a safe integer`);
  return n;
}

function jsonFromText(text: string, field: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new RolloutRequestError(`invalid rollout request: ${field}: not JSON (${(e as Error).message})`);
  }
}

function objectFromText(text: string, field: string): Record<string, unknown> {
  const value = jsonFromText(text, field);
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new RolloutRequestError(`invalid rollout request: ${field}: must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** The message a client sends for a request in its JSON form (validated first, so errors are local). */
export function requestToProto(input: RolloutRequestInput): ProtoRequest {
  const parsed = rolloutRequestSchema.safeParse(input);
  if (!parsed.success) throw new RolloutRequestError(describeRequestIssues(parsed.error));
  const req = parsed.data;
  const out: ProtoRequest = {
    tasks: req.tasks.map((t) => ({
      id: t.id,
      data_source: t.data_source,
      prompt: t.prompt.map(({ role, content, ...extra }) => ({
        role,
        content,
        extra_json: Object.keys(extra).length > 0 ? JSON.stringify(extra) : "",
      })),
      ground_truth_json: t.ground_truth === undefined ? "" : JSON.stringify(t.ground_truth),
      extra_info_json: Object.keys(t.extra_info).length > 0 ? JSON.stringify(t.extra_info) : "",
      ...(t.tools !== undefined ? { tools: { names: t.tools } } : {}),
      ...(t.turns !== undefined
        ? {
            turns: t.turns.map((turn) => ({
              content: turn.content,
              ...(turn.tools !== undefined ? { tools: { names: turn.tools } } : {}),
              ground_truth_json: turn.ground_truth === undefined ? "" : JSON.stringify(turn.ground_truth),
            })),
          }
        : {}),
      ...(t.user_simulator !== undefined
        ? (({ instruction, ...extra }) => ({
            user_simulator: {
              instruction,
              extra_json: Object.keys(extra).length > 0 ? JSON.stringify(extra) : "",
            },
          }))(t.user_simulator)
        : {}),
      ...(t.environment !== undefined
        ? {
            environment: {
              server: t.environment.server,
              config_json:
                Object.keys(t.environment.config).length > 0 ? JSON.stringify(t.environment.config) : "",
            },
          }
        : {}),
      ...(t.tool_aliases !== undefined ? { tool_aliases: t.tool_aliases } : {}),
    })),
  };
  if (req.group_size !== undefined) out.group_size = req.group_size;
  if (req.sampling !== undefined) {
    const { stop, seed, ...numbers } = req.sampling;
    const sampling: ProtoSampling = { ...numbers };
    if (stop !== undefined) sampling.stop = stop;
    if (seed !== undefined) sampling.seed = String(seed);
    out.sampling = sampling;
  }
  if (req.max_turns !== undefined) out.max_turns = req.max_turns;
  if (req.policy_version != null) out.policy_version = String(req.policy_version);
  if (req.inference !== undefined) {
    out.inference = {
      urls: req.inference.urls,
      engine: req.inference.engine ?? "",
      model: req.inference.model ?? "",
      logprobs_mode: req.inference.logprobs_mode ?? "",
    };
  }
  return out;
}

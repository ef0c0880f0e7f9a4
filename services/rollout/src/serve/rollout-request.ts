// A rollout request (HTTP JSON body, or the rlfactory.v1.RolloutRequest message in its JSON form),
// validated once into the engine's arguments. The wire form and its schema are @rlfactory/clients'
// (rollout-request.ts), so the client and both transports accept and reject the same requests.

import { describeRequestIssues, RolloutRequestError, rolloutRequestSchema } from "@rlfactory/clients";
import type { Task } from "@rlfactory/contracts";
import type { RolloutOptions } from "../rollout/rollout-engine.ts";

/** The engine's arguments for one request. */
export interface ParsedRolloutRequest {
  tasks: Task[];
  options: Omit<RolloutOptions, "signal">;
}

/** Validates a request in its JSON form; throws RolloutRequestError with every problem, by path. */
export function parseRolloutRequest(body: unknown): ParsedRolloutRequest {
  const parsed = rolloutRequestSchema.safeParse(body);
  if (!parsed.success) throw new RolloutRequestError(describeRequestIssues(parsed.error));
  const req = parsed.data;
  const options: ParsedRolloutRequest["options"] = {};
  if (req.group_size !== undefined) options.groupSize = req.group_size;
  if (req.sampling !== undefined && Object.keys(req.sampling).length > 0) options.sampling = req.sampling;
  if (req.max_turns !== undefined) options.maxTurns = req.max_turns;
  if (req.policy_version != null) options.policyVersion = req.policy_version;
  if (req.inference !== undefined) {
    const { urls, engine, model, logprobs_mode } = req.inference;
    options.inference = {
      urls,
      ...(engine && { engine }),
      ...(model && { model }),
      ...(logprobs_mode && { logprobsMode: logprobs_mode }),
    };
  }
  return { tasks: req.tasks, options };
}

// Group judgment, RULER style: one call scores a whole GRPO group. The shared prefix is sent once (in
// <context>), each response in a <trajectory id="…"> block. Every call shows the responses in a fresh
// random order (seeded per call from the service's random source) with ids 1..n in the order shown, and
// maps the scores back to request order. A wrong number of scores or an unknown id is retried, then
// reported as COUNT_MISMATCH: a group is never dropped or returned partially. With k samples each
// response's score is the mean over samples.

import { rngStream } from "@rlfactory/kit";
import { eachSample, type ModeContext, type ModeResult, mean, withRetries } from "./judge-calls.ts";
import { renderCall } from "./rubrics.ts";
import { parseGroupScores } from "./score-parsing.ts";

export interface GroupInput {
  task: string;
  prefix?: string | undefined;
  reference?: string | undefined;
  responses: string[];
}

/** `order[j]` = the request index shown at position j (Fisher–Yates with a seeded PRNG). */
export function shuffledOrder(n: number, seed: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  const rand = rngStream(seed);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order;
}

export async function judgeGroup(ctx: ModeContext, input: GroupInput): Promise<ModeResult> {
  const { template, criteria, scale } = ctx.rubric;
  const n = input.responses.length;
  const jsonSchema = {
    name: "judge_group_scores",
    schema: {
      type: "object",
      properties: {
        scores: {
          type: "array",
          minItems: n,
          maxItems: n,
          items: {
            type: "object",
            properties: {
              trajectory_id: { type: "string" },
              explanation: { type: "string" },
              score: { type: "number", minimum: scale.min, maximum: scale.max },
            },
            required: ["trajectory_id", "explanation", "score"],
            additionalProperties: false,
          },
        },
      },
      required: ["scores"],
      additionalProperties: false,
    },
  };

  const samples = await eachSample(ctx, (sample) =>
    withRetries(ctx, async () => {
      const seed = Math.floor(ctx.random() * 2 ** 32);
      const order = shuffledOrder(n, seed);
      const ids = order.map((_, position) => String(position + 1));
      const trajectories = order.map((index, position) => ({
        id: ids[position] as string,
        text: input.responses[index] as string,
      }));
      const messages = renderCall(template, {
        task: input.task,
        prefix: input.prefix,
        reference: input.reference,
        trajectories,
        criteria,
        scale,
      });
      const answer = await ctx.ledger.complete(ctx, { messages, jsonSchema }, sample);
      const { byId } = parseGroupScores(answer.text, ids, scale);
      const scores = new Array<number>(n);
      order.forEach((index, position) => {
        scores[index] = (byId.get(ids[position] as string) as { score: number }).score;
      });
      return scores;
    }),
  );

  const scores = input.responses.map((_, i) => mean(samples.map((s) => s[i] as number)));
  return {
    score: mean(scores),
    scores,
    sample_scores: samples.map((s) => mean(s)),
    notes: [],
  };
}

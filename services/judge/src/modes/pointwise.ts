// Pointwise and reference-guided judgment: one response, one score on the rubric's scale, normalised to
// [0, 1]. Reference mode is the same call with the reference in the prompt (its own template). With k
// samples the score is the mean.

import { eachSample, type ModeContext, type ModeResult, mean, withRetries } from "./judge-calls.ts";
import { renderCallWithBoundary } from "./rubrics.ts";
import { parseScore } from "./score-parsing.ts";

export interface PointwiseInput {
  task: string;
  response: string;
  reference?: string | undefined;
}

export async function judgePointwise(ctx: ModeContext, input: PointwiseInput): Promise<ModeResult> {
  const { template, criteria, scale } = ctx.rubric;
  const jsonSchema = {
    name: "judge_score",
    schema: {
      type: "object",
      properties: {
        explanation: { type: "string" },
        score: { type: "number", minimum: scale.min, maximum: scale.max },
      },
      required: ["explanation", "score"],
      additionalProperties: false,
    },
  };
  const samples = await eachSample(ctx, (sample) =>
    withRetries(ctx, async () => {
      // A fresh boundary per call: a retry is a new message the policy's text cannot anticipate either.
      const { messages, boundary } = renderCallWithBoundary(template, { ...input, criteria, scale });
      const answer = await ctx.ledger.complete(ctx, { messages, jsonSchema }, sample);
      return parseScore(answer.text, scale, { structured: ctx.structured, boundary });
    }),
  );
  const sampleScores = samples.map((s) => s.score);
  const explanation = samples.find((s) => s.explanation)?.explanation;
  return {
    score: mean(sampleScores),
    sample_scores: sampleScores,
    ...(explanation ? { explanation } : {}),
    notes: [],
  };
}

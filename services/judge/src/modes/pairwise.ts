// Pairwise judgment with position-bias control: every sample judges both orders, (first, second) and
// (second, first). The same winner both times wins; a flip (or a tie either way) is a tie. Score =
// P(first wins): 1, 0 or 0.5 per sample, averaged; the winner over k samples is the majority. Both raw
// verdicts of every sample are recorded in `notes`.

import { eachSample, type ModeContext, type ModeResult, majority, mean, withRetries } from "./judge-calls.ts";
import { renderCall } from "./rubrics.ts";
import { parseWinner } from "./score-parsing.ts";

export interface PairwiseInput {
  task: string;
  responses: [string, string];
  reference?: string | undefined;
}

type Winner = "first" | "second" | "tie";

const JSON_SCHEMA = {
  name: "judge_pairwise",
  schema: {
    type: "object",
    properties: { explanation: { type: "string" }, winner: { type: "string", enum: ["A", "B", "tie"] } },
    required: ["explanation", "winner"],
    additionalProperties: false,
  },
};

export async function judgePairwise(ctx: ModeContext, input: PairwiseInput): Promise<ModeResult> {
  const { template, criteria, scale } = ctx.rubric;
  const [first, second] = input.responses;

  /** One order: `swapped` shows (second, first) as (A, B). */
  const verdict = (swapped: boolean, sample: number) =>
    withRetries(ctx, async () => {
      const pair: [string, string] = swapped ? [second, first] : [first, second];
      const messages = renderCall(template, {
        task: input.task,
        reference: input.reference,
        pair,
        criteria,
        scale,
      });
      const answer = await ctx.ledger.complete(ctx, { messages, jsonSchema: JSON_SCHEMA }, sample);
      const { winner: label, explanation } = parseWinner(answer.text, { structured: ctx.structured });
      const winner: Winner = label === "tie" ? "tie" : (label === "A") !== swapped ? "first" : "second";
      return { label, winner, explanation };
    });

  const samples = await eachSample(ctx, async (sample) => {
    const [straight, swapped] = await Promise.all([verdict(false, sample), verdict(true, sample)]);
    const winner: Winner = straight.winner === swapped.winner ? straight.winner : "tie";
    return { winner, straight, swapped };
  });

  const sampleScores = samples.map((s) => (s.winner === "first" ? 1 : s.winner === "second" ? 0 : 0.5));
  const notes = samples.map(
    (s, i) =>
      `sample ${i}: (first, second) → ${s.straight.label} [${s.straight.winner}]; ` +
      `(second, first) → ${s.swapped.label} [${s.swapped.winner}]` +
      (s.straight.winner !== s.swapped.winner ? " — inconsistent across orders: tie" : ""),
  );
  const explanation = samples[0]?.straight.explanation ?? samples[0]?.swapped.explanation;
  return {
    score: mean(sampleScores),
    winner: majority(samples.map((s) => s.winner)),
    sample_scores: sampleScores,
    ...(explanation ? { explanation } : {}),
    notes,
    pairwise_flip: samples.some((s) => s.straight.winner !== s.swapped.winner),
  };
}

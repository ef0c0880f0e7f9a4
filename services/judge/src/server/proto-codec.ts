// judge.proto at run time (loaded with the options the type generator used, plus grpc.health.v1 so
// reflection describes health too), and the conversion between its messages and the request language
// of judge-types.ts. A gRPC request becomes the same JSON object the HTTP route receives, then goes
// through the same zod schema: both transports accept and refuse exactly the same requests.
import type { PackageDefinition } from "@grpc/proto-loader";
import { loadServiceProto, PROTO_FILES } from "@rlfactory/proto";
import type { ProtoGrpcType } from "@rlfactory/proto/grpc/judge";
import type { JudgeErrorCode as ProtoErrorCode } from "@rlfactory/proto/types/JudgeErrorCode";
import type { JudgeMode__Output } from "@rlfactory/proto/types/JudgeMode";
import type { JudgeRequest__Output } from "@rlfactory/proto/types/JudgeRequest";
import type { JudgeResponse } from "@rlfactory/proto/types/JudgeResponse";
import type { JudgeWinner } from "@rlfactory/proto/types/JudgeWinner";
import type { JudgeOutcome, JudgeRequest, JudgeScore } from "../judge-types.ts";

export const JUDGE_SERVICE = "rlfactory.v1.Judge";

export function loadJudgeProto(): { definition: PackageDefinition; grpc: ProtoGrpcType } {
  return loadServiceProto<ProtoGrpcType>(PROTO_FILES.judge);
}

const MODES: Record<JudgeMode__Output, JudgeRequest["mode"] | undefined> = {
  JUDGE_MODE_UNSPECIFIED: undefined,
  JUDGE_MODE_POINTWISE: "pointwise",
  JUDGE_MODE_REFERENCE: "reference",
  JUDGE_MODE_PAIRWISE: "pairwise",
  JUDGE_MODE_GROUP: "group",
  JUDGE_MODE_RULE: "rule",
};

/**
 * The JSON form of a gRPC request (unvalidated: judgeRequestSchema decides). Only the fields of the
 * request's mode are carried, so the strict schemas do not trip on proto3 defaults; a field of another
 * mode that the caller did set is carried too, so that it is refused rather than silently dropped.
 */
export function requestFromProto(m: JudgeRequest__Output): unknown {
  const mode = MODES[m.mode];
  const out: Record<string, unknown> = { mode: mode ?? "unspecified (set JudgeRequest.mode)" };
  const model = mode !== "rule";
  if (m.task !== "" || model) out.task = m.task;
  if (mode === "pointwise" || mode === "reference" || mode === "rule" || m.response !== "")
    out.response = m.response;
  if (mode === "pairwise" || mode === "group" || m.responses.length > 0) out.responses = m.responses;
  if (m.reference !== undefined) out.reference = m.reference;
  if (m.rubric !== undefined) out.rubric = m.rubric;
  if (m.rubric_id !== undefined) out.rubric_id = m.rubric_id;
  if (m.prefix !== undefined) out.prefix = m.prefix;
  if (mode === "rule" || m.grader_json !== "") out.grader = parseGrader(m.grader_json);
  if (m.samples !== 0) out.samples = m.samples;
  if (m.sampling) {
    const s = m.sampling;
    const sampling: Record<string, unknown> = {};
    if (s.temperature !== undefined) sampling.temperature = s.temperature;
    if (s.top_p !== undefined) sampling.top_p = s.top_p;
    if (s.max_tokens !== undefined) sampling.max_tokens = s.max_tokens;
    if (s.seed !== undefined) sampling.seed = Number(s.seed);
    out.sampling = sampling;
  }
  if (m.deadline_ms !== 0) out.deadline_ms = m.deadline_ms;
  if (m.no_cache) out.no_cache = true;
  return out;
}

/** The grader object, or the text itself when it is not JSON (the schema then refuses it with a path). */
function parseGrader(text: string): unknown {
  if (text === "") return "grader_json is empty (a rule request needs the grader as JSON text)";
  try {
    return JSON.parse(text);
  } catch {
    return `grader_json is not JSON: ${text.slice(0, 100)}`;
  }
}

const WINNERS: Record<NonNullable<JudgeScore["winner"]>, JudgeWinner> = {
  first: "JUDGE_WINNER_FIRST",
  second: "JUDGE_WINNER_SECOND",
  tie: "JUDGE_WINNER_TIE",
};

export function outcomeToProto(outcome: JudgeOutcome): JudgeResponse {
  if (!outcome.ok) {
    return {
      error: { code: `JUDGE_ERROR_${outcome.error.code}` as ProtoErrorCode, message: outcome.error.message },
    };
  }
  const { score, scores, winner, metadata: m } = outcome.result;
  return {
    score: {
      score,
      scores: scores ?? [],
      winner: winner ? WINNERS[winner] : "JUDGE_WINNER_UNSPECIFIED",
      metadata: {
        mode: m.mode,
        judge_model: m.judge_model,
        template: m.template,
        latency_ms: m.latency_ms,
        prompt_tokens: m.tokens.prompt,
        completion_tokens: m.tokens.completion,
        calls: m.calls,
        samples: m.samples,
        cached: m.cached,
        sample_scores: m.sample_scores ?? [],
        explanation: m.explanation ?? "",
        notes: m.notes ?? [],
        ...(m.pairwise_flip === undefined ? {} : { pairwise_flip: m.pairwise_flip }),
      },
    },
  };
}

// The judge service core: one request in, a score with metadata or a typed failure out — never a
// silent 0 or 1. The order of work for one request:
//   1. validate (INVALID_REQUEST) and pick rubric, samples and sampling (request, else config defaults);
//   2. the deadline and the caller's signal become one AbortSignal that every judge call carries;
//   3. check the operator's per-field limits (request-limits.ts: INVALID_REQUEST naming the limit);
//      rule mode: grade without any model, in the rule-grader pool's worker threads, under the
//      deadline (rule_graders.deadline_ms, or the request's shorter deadline_ms);
//   4. model modes: no backend → BACKEND_UNAVAILABLE saying how to configure one;
//   5. normalise look-alikes and strip score-like tokens the policy wrote from the judged text
//      (sanitize.ts); the judge sees it inside a per-call nonce boundary (rubrics.ts) and its verdict is
//      read only from its one designated final structure (score-parsing.ts);
//   6. deterministic requests (temperature 0, one sample, no `no_cache`) go through the cache;
//   7. the mode runs its judge calls (with parse/count retries and k samples) and the metadata is filled.

import { raceSignal } from "@rlfactory/kit";
import { type Logger, pino } from "pino";
import { z } from "zod";
import { createChatBackend } from "./backend/chat-backend.ts";
import type { ChatBackend } from "./backend/chat-backend-types.ts";
import { createScoreCache, judgeCacheKey } from "./cache.ts";
import type { JudgeConfig } from "./judge-config.ts";
import {
  JudgeError,
  type JudgeLimit,
  type JudgeMetadata,
  type JudgeOutcome,
  type JudgeRequest,
  type JudgeScore,
  judgeRequestSchema,
} from "./judge-types.ts";
import { judgeGroup } from "./modes/group.ts";
import { CallLedger, type ModeContext, type ModeResult, type Sampling } from "./modes/judge-calls.ts";
import { judgePairwise } from "./modes/pairwise.ts";
import { judgePointwise } from "./modes/pointwise.ts";
import { resolveRubric } from "./modes/rubrics.ts";
import { sanitizeJudgedText } from "./modes/sanitize.ts";
import { checkRequestLimits } from "./request-limits.ts";
import { createRuleGraderPool } from "./rule-graders/rule-grader-pool.ts";

export interface JudgeServiceOptions {
  /** The judge model; default: `createChatBackend(config.backend)` when the config has a backend. */
  backend?: ChatBackend;
  log?: Logger;
  /** Uniform in [0, 1): the per-call shuffle seeds of group mode (tests pass a seeded one). */
  random?: () => number;
}

export interface JudgeService {
  /** Never throws: every failure is an `{ ok: false, error }` outcome. */
  judge(request: JudgeRequest | unknown, opts?: { signal?: AbortSignal }): Promise<JudgeOutcome>;
  /** Whether model modes can be served (a backend is configured). */
  readonly hasBackend: boolean;
  readonly cacheBackend: "memory" | "redis";
  close(): Promise<void>;
}

export const NO_BACKEND_MESSAGE =
  "no judge model is configured: set JUDGE_BASE_URL (an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1), " +
  "JUDGE_MODEL and, if needed, JUDGE_API_KEY, or start with `rlf judge --config FILE` with a `backend:` block. " +
  "Rule graders (mode: rule) work without one.";

type ModelRequest = Exclude<JudgeRequest, { mode: "rule" }>;

export function createJudgeService(config: JudgeConfig, options: JudgeServiceOptions = {}): JudgeService {
  const log = options.log ?? pino({ level: "silent" });
  const ownsBackend = options.backend === undefined && config.backend !== undefined;
  const backend = options.backend ?? (config.backend ? createChatBackend(config.backend) : undefined);
  const random = options.random ?? Math.random;
  const cache = createScoreCache(config.cache, log);
  const rulePool = createRuleGraderPool({ workers: config.rule_graders.workers });
  const structured = backend?.jsonSchema ?? config.backend?.json_schema ?? false;

  async function judgeModel(
    request: ModelRequest,
    raw: unknown,
    callerSignal: AbortSignal,
  ): Promise<JudgeScore> {
    if (!backend) throw new JudgeError("BACKEND_UNAVAILABLE", NO_BACKEND_MESSAGE);
    const rubric = resolveRubric(request, config.rubrics);
    const rawFields = raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
    const samples = rawFields.samples === undefined ? config.defaults.samples : request.samples;
    const sampling: Sampling = { ...config.defaults.sampling, ...request.sampling };
    const notes: string[] = [];
    if (samples > 1 && sampling.temperature === 0)
      notes.push(`${samples} samples at temperature 0: the samples are likely identical`);

    // Strip score-like tokens the policy wrote, before anything (the cache key included) sees them.
    let removed = 0;
    let normalised = 0;
    let neutralised = 0;
    const clean = (text: string) => {
      const r = sanitizeJudgedText(text);
      removed += r.removed;
      if (r.normalised) normalised++;
      if (r.neutralised) neutralised++;
      return r.text;
    };
    const inputs =
      request.mode === "pairwise"
        ? { responses: request.responses.map(clean) as [string, string] }
        : request.mode === "group"
          ? { responses: request.responses.map(clean), prefix: request.prefix }
          : { response: clean(request.response) };
    if (normalised > 0)
      notes.push(`normalised look-alike, invisible or escaped characters in ${normalised} judged text(s)`);
    if (removed > 0) notes.push(`removed ${removed} score-like token(s) from the judged text`);
    if (neutralised > 0)
      notes.push(
        `${neutralised} judged text(s) nested score-like tokens: their brackets and score words were blanked`,
      );

    // `signal` is the one the judge calls carry: the caller's, or a shared judgment's (see the cache).
    const run = async (signal: AbortSignal): Promise<JudgeScore> => {
      const started = performance.now();
      const ledger = new CallLedger();
      const ctx: ModeContext = {
        backend,
        rubric,
        sampling,
        samples,
        retries: config.retries,
        signal,
        random,
        ledger,
        structured,
      };
      let result: ModeResult;
      if (request.mode === "pairwise") {
        result = await judgePairwise(ctx, {
          task: request.task,
          reference: request.reference,
          responses: inputs.responses as [string, string],
        });
      } else if (request.mode === "group") {
        result = await judgeGroup(ctx, {
          task: request.task,
          prefix: request.prefix,
          reference: request.reference,
          responses: inputs.responses as string[],
        });
      } else {
        result = await judgePointwise(ctx, {
          task: request.task,
          reference: request.reference,
          response: inputs.response as string,
        });
      }
      const allNotes = [...notes, ...result.notes];
      const metadata: JudgeMetadata = {
        mode: request.mode,
        judge_model: ledger.model ?? backend.model,
        template: rubric.label,
        latency_ms: elapsed(started),
        tokens: { prompt: ledger.prompt, completion: ledger.completion },
        calls: ledger.calls,
        samples,
        cached: false,
        sample_scores: result.sample_scores,
        ...(result.explanation ? { explanation: result.explanation } : {}),
        ...(allNotes.length > 0 ? { notes: allNotes } : {}),
        ...(result.pairwise_flip === undefined ? {} : { pairwise_flip: result.pairwise_flip }),
      };
      return {
        score: result.score,
        ...(result.scores ? { scores: result.scores } : {}),
        ...(result.winner ? { winner: result.winner } : {}),
        metadata,
      };
    };

    const deterministic = sampling.temperature === 0 && samples === 1 && request.no_cache !== true;
    if (!deterministic) return run(callerSignal);
    const key = judgeCacheKey({
      judgeModel: backend.model,
      template: `${rubric.template.id}@${rubric.template.version}`,
      rubric: rubric.label,
      criteria: rubric.criteria,
      mode: request.mode,
      inputs: { task: request.task, reference: request.reference, ...inputs },
      sampling: { ...sampling },
      samples,
    });
    return cache.through(key, callerSignal, run);
  }

  async function judgeOnce(request: JudgeRequest, raw: unknown, signal: AbortSignal): Promise<JudgeScore> {
    if (request.mode !== "rule") return judgeModel(request, raw, signal);
    const started = performance.now();
    const result = await rulePool.grade(
      request.grader,
      { response: request.response, reference: request.reference, task: request.task },
      signal,
    );
    const type = typeof request.grader.type === "string" ? request.grader.type : "grader";
    return {
      score: result.score,
      metadata: {
        mode: "rule",
        judge_model: "rule",
        template: `rule:${type}`,
        latency_ms: elapsed(started),
        tokens: { prompt: 0, completion: 0 },
        calls: 0,
        samples: 1,
        cached: false,
        sample_scores: [result.score],
        explanation: JSON.stringify(result.detail),
      },
    };
  }

  return {
    hasBackend: backend !== undefined,
    cacheBackend: cache.backend,
    async judge(raw, opts = {}) {
      const parsed = judgeRequestSchema.safeParse(raw);
      if (!parsed.success)
        return failure(
          "INVALID_REQUEST",
          `invalid judge request: ${z.prettifyError(parsed.error).replaceAll("\n", "; ")}`,
        );
      const request = parsed.data;
      try {
        checkRequestLimits(request, config.limits, config.rule_graders);
      } catch (err) {
        if (err instanceof JudgeError) return failure(err.code, err.message, err.limit);
        throw err;
      }
      const ruleDeadline = config.rule_graders.deadline_ms;
      const deadlineMs =
        request.mode === "rule"
          ? Math.min(request.deadline_ms ?? ruleDeadline, ruleDeadline)
          : request.deadline_ms;
      const deadline = deadlineMs === undefined ? undefined : AbortSignal.timeout(deadlineMs);
      const signals = [opts.signal, deadline].filter((s): s is AbortSignal => s !== undefined);
      const signal = signals.length === 0 ? new AbortController().signal : AbortSignal.any(signals);
      try {
        const result = await raceSignal(judgeOnce(request, raw, signal), signal);
        return { ok: true, result };
      } catch (err) {
        if (deadline?.aborted && request.mode === "rule")
          return failure(
            "TIMEOUT",
            `the rule grader did not finish within ${deadlineMs} ms (rule_graders.deadline_ms ${ruleDeadline}, ` +
              "or the request's shorter deadline_ms): its worker was stopped",
            { setting: "rule_graders.deadline_ms", max: ruleDeadline },
          );
        if (deadline?.aborted)
          return failure("TIMEOUT", `the judgment did not finish within deadline_ms ${deadlineMs}`);
        if (opts.signal?.aborted) return failure("CANCELLED", "the caller cancelled the judgment");
        if (err instanceof JudgeError) return failure(err.code, err.message, err.limit);
        log.error({ err, mode: request.mode }, "judge request failed unexpectedly");
        return failure("INTERNAL", `internal judge error: ${(err as Error)?.message ?? String(err)}`);
      }
    },
    async close() {
      await rulePool.close();
      await cache.close();
      if (ownsBackend) await backend?.close();
    },
  };
}

function failure(code: JudgeError["code"], message: string, limit?: JudgeLimit): JudgeOutcome {
  return { ok: false, error: { code, message, ...(limit ? { limit } : {}) } };
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}

// The parts of `npm run bench -- real-inference` that need no real model (tested in
// real-inference.test.ts against the simulated inference server):
//
//   startRecordingProxy   a loopback HTTP proxy between the rollout engine and a vLLM-style server that
//                         forwards every request and keeps each `POST /v1/completions` exchange: the
//                         prompt ids sent, the token ids and logprobs the server answered
//   checkTrajectories     the trajectory check: every sampled turn (a loss_mask 1 segment) of every
//                         trajectory equals the ids and logprobs the server returned for one request, and
//                         that request's prompt was the context before the turn (prompt + response so far)
import { Buffer } from "node:buffer";
import { createServer, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { Trajectory } from "@rlfactory/rollout";
import { z } from "zod";

/** One `POST /v1/completions` as the proxy saw it. */
export interface RecordedCompletion {
  /** The request body as sent (parsed JSON). */
  body: unknown;
  /** The prompt ids sent (null when the prompt was text). */
  prompt: number[] | null;
  status: number;
  /** choices[0].token_ids of the answer (null when absent or not a 200). */
  tokenIds: number[] | null;
  /** choices[0].logprobs.token_logprobs of the answer. */
  logprobs: (number | null)[] | null;
}

export interface RecordingProxy {
  /** `http://127.0.0.1:PORT` (no `/v1`): what the engine is pointed at. */
  readonly url: string;
  /** Every completions exchange so far, in the order answers came back (the live array). */
  readonly completions: RecordedCompletion[];
  /** Requests forwarded, any path. */
  readonly forwarded: number;
  close(): Promise<void>;
}

const completionRequest = z.looseObject({ prompt: z.unknown() });
const completionAnswer = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        token_ids: z.array(z.number()).nullish(),
        logprobs: z.looseObject({ token_logprobs: z.array(z.number().nullable()) }).nullish(),
      }),
    )
    .min(1),
});

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

function record(path: string, method: string, sent: Buffer, status: number, answer: Buffer) {
  if (method !== "POST" || !path.split("?")[0]!.endsWith("/v1/completions")) return undefined;
  const body = parseJson(sent);
  const req = completionRequest.safeParse(body);
  const prompt = req.success && Array.isArray(req.data.prompt) ? (req.data.prompt as number[]) : null;
  const res = status === 200 ? completionAnswer.safeParse(parseJson(answer)) : undefined;
  const choice = res?.success ? res.data.choices[0]! : undefined;
  return {
    body,
    prompt,
    status,
    tokenIds: choice?.token_ids ?? null,
    logprobs: choice?.logprobs?.token_logprobs ?? null,
  } satisfies RecordedCompletion;
}

/**
 * A proxy on 127.0.0.1 forwarding every request to `target` (a base URL, `/v1` or not) unchanged,
 * whole bodies buffered, and recording the completions exchanges.
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const base = new URL(target.replace(/\/+$/, "").replace(/\/v1$/, ""));
  const completions: RecordedCompletion[] = [];
  let forwarded = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const sent = Buffer.concat(chunks);
      const headers: IncomingHttpHeaders = { ...req.headers, host: base.host };
      delete headers["content-length"];
      forwarded += 1;
      const upstream = httpRequest(
        {
          host: base.hostname,
          port: base.port,
          method: req.method,
          path: `${base.pathname.replace(/\/$/, "")}${req.url ?? "/"}`,
          headers: { ...headers, "content-length": String(sent.length) },
        },
        (up) => {
          const back: Buffer[] = [];
          up.on("data", (c: Buffer) => back.push(c));
          up.on("end", () => {
            const answer = Buffer.concat(back);
            const rec = record(req.url ?? "/", req.method ?? "GET", sent, up.statusCode ?? 0, answer);
            if (rec) completions.push(rec);
            const outHeaders = { ...up.headers };
            delete outHeaders["transfer-encoding"];
            res.writeHead(up.statusCode ?? 502, { ...outHeaders, "content-length": String(answer.length) });
            res.end(answer);
          });
          up.on("error", () => res.destroy());
        },
      );
      upstream.on("error", (e) => {
        if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
        res.end(`proxy: ${e.message}`);
      });
      // the client went away (cancellation): abort the upstream request too, as a direct client would
      res.on("close", () => {
        if (!res.writableFinished) upstream.destroy();
      });
      upstream.end(sent);
    });
  });
  await new Promise<void>((resolvePromise) => server.listen(0, "127.0.0.1", resolvePromise));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    completions,
    get forwarded() {
      return forwarded;
    },
    close: () =>
      new Promise<void>((resolvePromise) => {
        server.closeAllConnections();
        server.close(() => resolvePromise());
      }),
  };
}

export interface TurnMismatch {
  task_id: string;
  sample_index: number;
  /** Index into the trajectory's `turns` (or -1 for a problem of the whole trajectory). */
  turn: number;
  reason: string;
}

export interface TrajectoryCheck {
  trajectories: number;
  /** Sampled turns checked against a recorded request. */
  turns_checked: number;
  /** Sampled turns whose ids and logprobs equal one recorded answer to their context. */
  turns_matched: number;
  /** Completions requests recorded (HTTP 200 with token ids). */
  requests: number;
  /** Recorded answers no sampled turn was matched or compared with (a failed trajectory's, a retried request's). */
  requests_unused: number;
  mismatches: TurnMismatch[];
}

const key = (ids: readonly number[]) => ids.join(",");

function equalIds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function firstDifference(a: readonly number[], b: readonly (number | null)[]): string {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return `at ${i}: ${a[i]} vs ${b[i]}`;
  return `lengths ${a.length} vs ${b.length}`;
}

/** The [start, end) runs of loss_mask 1. */
function maskRuns(mask: readonly number[]): [number, number][] {
  const runs: [number, number][] = [];
  let start = -1;
  mask.forEach((m, i) => {
    if (m === 1 && start < 0) start = i;
    if (m !== 1 && start >= 0) {
      runs.push([start, i]);
      start = -1;
    }
  });
  if (start >= 0) runs.push([start, mask.length]);
  return runs;
}

/**
 * Checks trajectories against what the server answered: each sampled turn's ids and logprobs must equal
 * one recorded answer (used once) whose request prompt was `prompt_ids + response_ids[0, start)`; the
 * loss_mask 1 runs must be exactly the sampled turns (adjacent sampled turns may share a run).
 */
export function checkTrajectories(
  trajectories: readonly Trajectory[],
  recorded: readonly RecordedCompletion[],
): TrajectoryCheck {
  const answered = recorded.filter(
    (r): r is RecordedCompletion & { prompt: number[]; tokenIds: number[] } =>
      r.status === 200 && r.prompt !== null && r.tokenIds !== null,
  );
  const byPrompt = new Map<string, number[]>();
  answered.forEach((r, i) => {
    const k = key(r.prompt);
    byPrompt.set(k, [...(byPrompt.get(k) ?? []), i]);
  });
  const used = new Set<number>();
  const mismatches: TurnMismatch[] = [];
  const sameLogprobs = (k: number, logprobs: readonly number[]) => {
    const served = answered[k]!.logprobs ?? [];
    return served.length === logprobs.length && served.every((x, j) => x === logprobs[j]);
  };
  // the sampled turns, with their context, ids and logprobs
  const turns = trajectories.flatMap((t) => {
    const where = { task_id: t.task_id, sample_index: t.sample_index };
    // loss_mask 1 must cover exactly the sampled turns
    const merged: [number, number][] = [];
    for (const x of t.turns) {
      if (x.kind !== "sampled") continue;
      const last = merged.at(-1);
      if (last && last[1] === x.start) last[1] = x.end;
      else merged.push([x.start, x.end]);
    }
    const runs = maskRuns(t.loss_mask);
    if (JSON.stringify(runs) !== JSON.stringify(merged)) {
      mismatches.push({
        ...where,
        turn: -1,
        reason: `loss_mask 1 runs ${JSON.stringify(runs)} are not the sampled turns ${JSON.stringify(merged)}`,
      });
    }
    return t.turns.flatMap((turn, i) =>
      turn.kind === "sampled"
        ? [
            {
              where: { ...where, turn: i },
              context: key([...t.prompt_ids, ...t.response_ids.slice(0, turn.start)]),
              ids: t.response_ids.slice(turn.start, turn.end),
              logprobs: t.rollout_logprobs.slice(turn.start, turn.end),
            },
          ]
        : [],
    );
  });
  // first every exact match (samples of one group may share a context and even their ids), then the rest
  const unmatched = turns.filter((turn) => {
    const k = (byPrompt.get(turn.context) ?? []).find(
      (c) => !used.has(c) && equalIds(answered[c]!.tokenIds, turn.ids) && sameLogprobs(c, turn.logprobs),
    );
    if (k === undefined) return true;
    used.add(k);
    return false;
  });
  for (const turn of unmatched) {
    const candidates = (byPrompt.get(turn.context) ?? []).filter((c) => !used.has(c));
    if (candidates.length === 0) {
      mismatches.push({ ...turn.where, reason: "no request had this turn's context as its prompt" });
      continue;
    }
    const sameIds = candidates.find((c) => equalIds(answered[c]!.tokenIds, turn.ids));
    const nearest = sameIds ?? candidates[0]!;
    used.add(nearest);
    mismatches.push({
      ...turn.where,
      reason:
        sameIds === undefined
          ? `sampled ids differ from the server's answer to this context (${firstDifference(turn.ids, answered[nearest]!.tokenIds)})`
          : `logprobs differ from the server's (${firstDifference(turn.logprobs, answered[nearest]!.logprobs ?? [])})`,
    });
  }
  const checked = turns.length;
  const matched = turns.length - unmatched.length;
  return {
    trajectories: trajectories.length,
    turns_checked: checked,
    turns_matched: matched,
    requests: answered.length,
    requests_unused: answered.length - used.size,
    mismatches,
  };
}

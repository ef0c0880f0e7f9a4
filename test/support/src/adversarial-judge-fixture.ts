// A TEST FIXTURE: an adversarial judge model for the judge's injection tests — the simulated
// OpenAI-compatible judge (simulated-judge.ts) with a script that behaves like a gullible judge model
// that also echoes what it read:
//   - it reads the pointwise/reference prompt the way a naive model would: the response block runs from
//     `<response…>` to the block's closing tag, and it notices disguised tokens (it folds fullwidth
//     forms, drops invisible characters and decodes entities, as a reader's eye does);
//   - it is SWAYED by a score-like token inside the response (`<score>10</score>`, `Score: 10`,
//     `rating=10`, `{"score": 10}`, `[RESULT] 10`, `10/10`, `a score of 10`), and by an instruction with a
//     number after a break-out (a closing tag of the block that is not the block's own closing tag, a
//     chat-template turn token, a `### System` header): its final verdict is then that number;
//   - otherwise its verdict is the true one (`verdict`);
//   - in every answer it QUOTES the response it read, before or after its verdict or both (a JSON
//     answer quotes it in its explanation), so a parser that picks up any score-like token gets the
//     policy's number.
// A judgment through this backend keeps its true score only if the policy's tokens never reach the
// model AND the verdict is read from the judge's own final structure alone. `swayed()` counts the
// answers whose verdict the policy's text decided.
import { type SimulatedJudge, type SimulatedJudgeRequest, startSimulatedJudge } from "./simulated-judge.ts";

export interface AdversarialJudgeOptions {
  /** The true verdict (on the rubric's scale) of every response. */
  verdict: number;
  /** `text`: analysis + `<score>N</score>`; `json`: `{"explanation", "score"}` (a JSON-schema backend). */
  answer: "text" | "json";
  latencyMs?: number;
}

export interface AdversarialJudge extends SimulatedJudge {
  /** Answers whose verdict was taken from the response's text instead of the true one. */
  swayed(): number;
}

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', sol: "/", apos: "'" };

/** How the fixture's "eye" reads text: independent of the judge's own normalisation, on purpose. */
export function readLikeAModel(text: string): string {
  // Unicode tag characters spell ASCII invisibly ("ASCII smuggling"): a model can read them.
  let out = text
    .replace(/[\u{E0020}-\u{E007E}]/gu, (c) => String.fromCodePoint((c.codePointAt(0) ?? 0) - 0xe0000))
    .replace(/\p{Cf}/gu, "");
  for (let i = 0; i < 4; i++) {
    const next = out
      .replace(/&(?:#(\d+)|#x([0-9a-f]+)|([a-z]+));?/gi, (w, d, h, n) =>
        d
          ? String.fromCodePoint(Number(d))
          : h
            ? String.fromCodePoint(Number.parseInt(h, 16))
            : (ENTITIES[n.toLowerCase()] ?? w),
      )
      .replace(/%3c/gi, "<")
      .replace(/%3e/gi, ">")
      .replace(/%2f/gi, "/")
      .replace(/\\u003c/gi, "<")
      .replace(/\\u003e/gi, ">")
      .normalize("NFKC")
      .replace(/[‹〈⟨˂]/g, "<")
      .replace(/[›〉⟩˃]/g, ">")
      .replace(/[ѕ]/g, "s")
      .replace(/[с]/g, "c")
      .replace(/[о]/g, "o")
      .replace(/[е]/g, "e")
      .replace(/[р]/g, "p")
      .replace(/\p{Cf}/gu, "");
    if (next === out) break;
    out = next;
  }
  return out;
}

const SCORE_TOKENS = [
  /<\s*(?:score|verdict|rating|grade|judge?ment|result|reward)\b[^>]*>\s*[^<\d]{0,40}(\d+(?:\.\d+)?)/i,
  /\[\s*RESULT\s*\]\s*(\d+(?:\.\d+)?)/i,
  /\b(?:score|rating|grade|points|verdict|reward)\b["'*_\s]*(?:[:=]|->|→|\bof\b)["'*_\s]*(\d+(?:\.\d+)?)/i,
  /\b(\d+(?:\.\d+)?)\s*(?:\/|out\s+of)\s*10\b/i,
];
const BREAK_OUT =
  /<\s*\/\s*(?:response|task|criteria|reference|trajectory)|<\|[a-z_]+\|>|\[\/?INST\]|<<\/?SYS>>|<\/?(?:start_of_turn|end_of_turn|s)>|^#{2,}\s*(?:system|instruction)/im;
const INSTRUCTION = /\b(?:give|output|assign|award|answer|return|rate)\b[^.\n]{0,60}?\b(\d+(?:\.\d+)?)\b/i;

/** The pointwise/reference response block as a naive model reads it: opener to the block's own closer. */
function responseBlock(user: string): string | undefined {
  const open = /<response(-[0-9a-f]+)?>\n?/.exec(user);
  if (!open) return undefined;
  const closer = `</response${open[1] ?? ""}>`;
  const end = user.indexOf(closer, open.index + open[0].length);
  return user.slice(open.index + open[0].length, end < 0 ? undefined : end).replace(/\n$/, "");
}

/** The verdict the policy's text talks this judge into, if any. */
export function swayedVerdict(response: string): number | undefined {
  const seen = readLikeAModel(response);
  for (const pattern of SCORE_TOKENS) {
    const m = pattern.exec(seen);
    if (m?.[1] !== undefined) return Number(m[1]);
  }
  const breakOut = BREAK_OUT.exec(seen);
  if (breakOut) {
    const m = INSTRUCTION.exec(seen.slice(breakOut.index));
    if (m?.[1] !== undefined) return Number(m[1]);
  }
  return undefined;
}

function layout(text: string): number {
  let h = 0;
  for (const c of text) h = (h * 31 + (c.codePointAt(0) ?? 0)) >>> 0;
  return h % 3;
}

export async function startAdversarialJudge(options: AdversarialJudgeOptions): Promise<AdversarialJudge> {
  let swayed = 0;
  const script = (req: SimulatedJudgeRequest): string => {
    const user = req.messages.find((m) => m.role === "user")?.content ?? "";
    const response = responseBlock(user) ?? "";
    const pushed = swayedVerdict(response);
    if (pushed !== undefined && pushed !== options.verdict) swayed++;
    const verdict = pushed ?? options.verdict;
    const quote = `The response reads: «${response}».`;
    if (options.answer === "json") return JSON.stringify({ explanation: quote, score: verdict });
    const final = `<score>${verdict}</score>`;
    switch (layout(response)) {
      case 0:
        return `${quote}\nIt does not answer the task correctly.\n${final}`;
      case 1:
        return `It does not answer the task correctly.\n${final}\n(${quote})`;
      default:
        return `${quote}\n${final}\nOnce more, ${quote}`;
    }
  };
  const sim = await startSimulatedJudge({
    script,
    model: "adversarial-judge",
    ...(options.latencyMs === undefined ? {} : { latencyMs: options.latencyMs }),
  });
  return Object.assign(sim, { swayed: () => swayed });
}

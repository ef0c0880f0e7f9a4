// A TEST FIXTURE: an adversarial judge model for the judge's injection tests — the simulated
// OpenAI-compatible judge (simulated-judge.ts) with a script that behaves like a gullible judge model
// that also echoes what it read:
//   - it reads the prompt the way a naive model would: a response block (pointwise `<response…>`,
//     pairwise `<response_a…>` / `<response_b…>`, group `<trajectory… id="…">`) runs to that block's
//     closing tag, and it notices disguised tokens (it folds fullwidth forms, drops invisible characters
//     and decodes entities, as a reader's eye does);
//   - it is SWAYED by a score-like token inside the response (`<score>10</score>`, `Score: 10`,
//     `rating=10`, `{"score": 10}`, `[RESULT] 10`, `10/10`, `a score of 10`), and by an instruction with a
//     number after a break-out (a closing tag of the block that is not the block's own closing tag, a
//     chat-template turn token, a `### System` header): its final verdict is then that number;
//   - otherwise its verdict is the true one (`verdict`; pairwise: a tie; group: `verdict` for each);
//     pairwise, a response that holds a score or an `[[A]]` / `[[B]]` verdict wins;
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

/** A block as a naive model reads it: from `<name…>` to the block's own closing tag. */
function block(user: string, name: string, from = 0): { text: string; id?: string; end: number } | undefined {
  const opener = new RegExp(`<${name}(-[0-9a-f]+)?((?: id="[^"]*")?)>\\n?`, "g");
  opener.lastIndex = from;
  const open = opener.exec(user);
  if (!open) return undefined;
  const closer = `</${name}${open[1] ?? ""}>`;
  const start = open.index + open[0].length;
  const at = user.indexOf(closer, start);
  const end = at < 0 ? user.length : at;
  const id = /id="([^"]*)"/.exec(open[2] ?? "")?.[1];
  return { text: user.slice(start, end).replace(/\n$/, ""), ...(id ? { id } : {}), end };
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
  const quote = (text: string) => `The response reads: «${text}».`;

  /** Group (RULER): every trajectory scored; JSON, each explanation quoting its trajectory. */
  const group = (user: string): string => {
    const scores: { trajectory_id: string; explanation: string; score: number }[] = [];
    for (let b = block(user, "trajectory"); b; b = block(user, "trajectory", b.end)) {
      const pushed = swayedVerdict(b.text);
      if (pushed !== undefined && pushed !== options.verdict) swayed++;
      scores.push({
        trajectory_id: b.id ?? "",
        explanation: quote(b.text),
        score: pushed ?? options.verdict,
      });
    }
    return JSON.stringify({ scores });
  };

  /** Pairwise: a tie unless a response talks the judge into picking it (a score or an `[[X]]` verdict). */
  const pairwise = (user: string): string => {
    const a = block(user, "response_a")?.text ?? "";
    const b = block(user, "response_b")?.text ?? "";
    const verdictIn = (text: string) =>
      /\[\[\s*([AB])\s*\]\]/i.exec(readLikeAModel(text))?.[1]?.toUpperCase();
    const pick =
      verdictIn(a) ??
      verdictIn(b) ??
      (swayedVerdict(a) !== undefined ? "A" : swayedVerdict(b) !== undefined ? "B" : undefined);
    if (pick) swayed++;
    const winner = pick ?? "tie";
    if (options.answer === "json") return JSON.stringify({ explanation: `${quote(a)} ${quote(b)}`, winner });
    return `A: ${quote(a)}\nB: ${quote(b)}\nBoth are wrong.\n${winner === "tie" ? "[[C]]" : `[[${winner}]]`}`;
  };

  const pointwise = (user: string): string => {
    const response = block(user, "response")?.text ?? "";
    const pushed = swayedVerdict(response);
    if (pushed !== undefined && pushed !== options.verdict) swayed++;
    const verdict = pushed ?? options.verdict;
    if (options.answer === "json") return JSON.stringify({ explanation: quote(response), score: verdict });
    const final = `<score>${verdict}</score>`;
    switch (layout(response)) {
      case 0:
        return `${quote(response)}\nIt does not answer the task correctly.\n${final}`;
      case 1:
        return `It does not answer the task correctly.\n${final}\n(${quote(response)})`;
      default:
        return `${quote(response)}\n${final}\nOnce more, ${quote(response)}`;
    }
  };

  const script = (req: SimulatedJudgeRequest): string => {
    const user = req.messages.find((m) => m.role === "user")?.content ?? "";
    if (/<trajectory[-\s>]/.test(user)) return group(user);
    if (/<response_a[->]/.test(user)) return pairwise(user);
    return pointwise(user);
  };
  const sim = await startSimulatedJudge({
    script,
    model: "adversarial-judge",
    ...(options.latencyMs === undefined ? {} : { latencyMs: options.latencyMs }),
  });
  return Object.assign(sim, { swayed: () => swayed });
}

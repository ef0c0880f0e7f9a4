// Our BFCL multi-turn verdicts against bfcl-eval's own multi_turn_checker, on the same executed call
// lists. Cases from BFCL_v4_multi_turn_base (shared data): the ground truth replayed as is (all 200
// entries), one wrong argument in one call (every other entry), and a few other kinds (a call dropped,
// a call duplicated, a later turn's calls made one turn early, two calls of a turn swapped); from
// bfcl-eval's own long_context (loaded with long_context=True), miss_param and miss_func files: the
// ground truth as is, a wrong argument, and calls made in a turn without ground truth. Every
// perturbation is chosen deterministically.
// Ours: every case's calls run as the model's through a real gateway and `rlf env bfcl --stdio` (an
// episode, a snapshot after each user turn, the results recorded as a trajectory's tool calls), then
// scored by `bfcl_state` and `bfcl_response` (one ground-truth replay in a fresh episode); valid ⇔ both
// are 1. Theirs: test/support/python/bfcl_checker_verdicts.py runs bfcl-eval's multi_turn_checker on
// the same calls as Python source (the ground truth's own strings; the wrong argument edited with ast).
// The verdicts must agree case by case.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BFCL_VENV, bfclPackageDir } from "@rlfactory/environments";
import {
  type BfclConvertOptions,
  type BfclTask,
  convertBfclTasks,
  createRewardFn,
  gatewayEpisodes,
  gatewayTools,
  parsePythonCall,
  type Trajectory,
  taskSchema,
} from "@rlfactory/rollout";
import { type InProcessGateway, RLF, ROOT, startTestGateway } from "@rlfactory/test-support/gateway-harness";
import { trajectoryWith } from "@rlfactory/test-support/reward-fixtures";
import { haveSharedData, sharedDataPath } from "@rlfactory/test-support/shared-data";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const QUESTIONS = "bfcl/BFCL_v4_multi_turn_base.json";
const ANSWERS = "bfcl/possible_answer/BFCL_v4_multi_turn_base.json";
const FUNC_DOCS = "bfcl/multi_turn_func_doc";
const VERDICTS_SCRIPT = join(ROOT, "test/support/python/bfcl_checker_verdicts.py");
/** Cases scored at once (each holds one episode at a time); the server runs 2 workers. */
const CONCURRENCY = 4;

function haveVenv(): boolean {
  if (bfclPackageDir() !== undefined) return true;
  const message = "BFCL checker parity: bfcl-eval is not installed (run npm run setup:environments)";
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

const READY = haveVenv() && haveSharedData("BFCL checker parity", QUESTIONS, ANSWERS, FUNC_DOCS);

type Json = Record<string, unknown>;
interface Call {
  name: string;
  arguments: Json;
}
/** The Python source of a call: the ground truth's own string, or it with one argument replaced. */
type PythonSource = string | { text: string; keyword?: string; position?: number; value: unknown };
interface ModelCall {
  call: Call;
  python: PythonSource;
}
type Kind =
  | "original"
  | "wrong_argument"
  | "dropped"
  | "duplicated"
  | "moved_early"
  | "swapped"
  | "acted_in_empty_turn";
interface Case {
  name: string;
  kind: Kind;
  task: BfclTask;
  entry: Json;
  truth: string[][];
  model: ModelCall[][];
}

const readJsonLines = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Json);

/** The ground truth, call by call, as the model's calls. */
function replayed(task: BfclTask, truth: string[][]): ModelCall[][] {
  const calls = [task.ground_truth, ...task.turns.map((u) => u.ground_truth)];
  return calls.map((turn, k) => turn.map((call, j) => ({ call, python: truth[k]![j]! })));
}

const positions = (model: ModelCall[][]) => model.flatMap((turn, k) => turn.map((_, j) => [k, j] as const));

/** One argument of one call changed: a string gets `_x`, a number +1 (+1.5 if not whole), a boolean flips. */
function wrongArgument(model: ModelCall[][], seed: number): ModelCall[][] | undefined {
  const candidates = positions(model).filter(([k, j]) =>
    Object.values(model[k]![j]!.call.arguments).some((v) =>
      ["string", "number", "boolean"].includes(typeof v),
    ),
  );
  if (candidates.length === 0) return undefined;
  const [k, j] = candidates[(seed * 7) % candidates.length]!;
  const { call, python } = model[k]![j]!;
  const key = Object.keys(call.arguments)
    .sort()
    .find((a) => ["string", "number", "boolean"].includes(typeof call.arguments[a]))!;
  const old = call.arguments[key];
  const value =
    typeof old === "string"
      ? `${old}_x`
      : typeof old === "boolean"
        ? !old
        : Number.isInteger(old)
          ? (old as number) + 1
          : (old as number) + 1.5;
  const text = python as string;
  // positional arguments come first in `arguments`, in order (the converter's reading)
  const parsed = parsePythonCall(text);
  const where = Object.hasOwn(parsed.kwargs, key)
    ? { keyword: key }
    : { position: Object.keys(call.arguments).indexOf(key) };
  const out = model.map((turn) => [...turn]);
  out[k]![j] = {
    call: { name: call.name, arguments: { ...call.arguments, [key]: value } },
    python: { text, ...where, value },
  };
  return out;
}

function dropped(model: ModelCall[][], seed: number): ModelCall[][] {
  const all = positions(model);
  const [k, j] = all[(seed * 3) % all.length]!;
  return model.map((turn, i) => (i === k ? turn.filter((_, x) => x !== j) : [...turn]));
}

function duplicated(model: ModelCall[][], seed: number): ModelCall[][] {
  const all = positions(model);
  const [k, j] = all[(seed * 5) % all.length]!;
  return model.map((turn, i) => (i === k ? [...turn.slice(0, j + 1), ...turn.slice(j)] : [...turn]));
}

/** A later turn's calls made at the end of the turn before; that turn then makes none. */
function movedEarly(model: ModelCall[][], seed: number): ModelCall[][] | undefined {
  const later = model.map((_, k) => k).filter((k) => k > 0 && model[k]!.length > 0);
  if (later.length === 0) return undefined;
  const k = later[seed % later.length]!;
  return model.map((turn, i) => (i === k - 1 ? [...turn, ...model[k]!] : i === k ? [] : [...turn]));
}

/** The calls of the turn after one without ground truth made in that turn too (where the model should not act). */
function actedInEmptyTurn(model: ModelCall[][], seed: number): ModelCall[][] | undefined {
  const empty = model
    .map((_, k) => k)
    .filter((k) => model[k]!.length === 0 && (model[k + 1]?.length ?? 0) > 0);
  if (empty.length === 0) return undefined;
  const k = empty[seed % empty.length]!;
  return model.map((turn, i) => (i === k ? [...model[k + 1]!] : [...turn]));
}

function swapped(model: ModelCall[][], seed: number): ModelCall[][] | undefined {
  const turns = model.map((_, k) => k).filter((k) => model[k]!.length >= 2);
  if (turns.length === 0) return undefined;
  const k = turns[seed % turns.length]!;
  return model.map((turn, i) => (i === k ? [turn[1]!, turn[0]!, ...turn.slice(2)] : [...turn]));
}

/** One BFCL file and its cases: which kinds, on which of its entries (by index). */
interface Source extends BfclConvertOptions {
  plan: (add: (kind: Kind, i: number) => void, count: number) => void;
}

const PERTURB: Record<
  Exclude<Kind, "original">,
  (model: ModelCall[][], seed: number) => ModelCall[][] | undefined
> = {
  wrong_argument: wrongArgument,
  dropped,
  duplicated,
  moved_early: movedEarly,
  swapped,
  acted_in_empty_turn: actedInEmptyTurn,
};

async function buildCases(source: Source): Promise<Case[]> {
  const tasks = await convertBfclTasks(source);
  const entries = new Map(readJsonLines(source.questions).map((e) => [e.id as string, e]));
  const truths = new Map(
    readJsonLines(source.answers).map((a) => [a.id as string, a.ground_truth as string[][]]),
  );
  const cases: Case[] = [];
  source.plan((kind, i) => {
    const task = tasks[i]!;
    const truth = truths.get(task.id)!;
    const original = replayed(task, truth);
    const model = kind === "original" ? original : PERTURB[kind](original, i);
    if (model === undefined) return;
    cases.push({ name: `${task.id}/${kind}`, kind, task, entry: entries.get(task.id)!, truth, model });
  }, tasks.length);
  return cases;
}

const range = (from: number, to: number, step = 1) =>
  Array.from({ length: Math.ceil((to - from) / step) }, (_, i) => from + i * step);

/** The cases: all of multi_turn_base (shared data), and some of the other categories (bfcl-eval's own data). */
function sources(): Source[] {
  const data = join(bfclPackageDir()!, "data");
  const other = (category: string, plan: Source["plan"]): Source => ({
    questions: join(data, `BFCL_v4_multi_turn_${category}.json`),
    answers: join(data, "possible_answer", `BFCL_v4_multi_turn_${category}.json`),
    funcDocs: join(data, "multi_turn_func_doc"),
    plan,
  });
  return [
    {
      questions: sharedDataPath(QUESTIONS),
      answers: sharedDataPath(ANSWERS),
      funcDocs: sharedDataPath(FUNC_DOCS),
      plan: (add, count) => {
        for (const i of range(0, count)) add("original", i);
        for (const i of range(0, count, 2)) add("wrong_argument", i);
        for (const i of range(0, 12)) add("dropped", i);
        for (const i of range(12, 24)) add("duplicated", i);
        for (const i of range(24, 32)) add("moved_early", i);
        for (const i of range(32, 40)) add("swapped", i);
      },
    },
    // loaded with long_context=True on both sides
    other("long_context", (add) => {
      for (const i of range(0, 16)) add("original", i);
      for (const i of range(16, 32)) add("wrong_argument", i);
    }),
    // turns without ground truth: neither side checks them
    other("miss_param", (add) => {
      for (const i of range(0, 16)) add("original", i);
      for (const i of range(16, 32)) add("acted_in_empty_turn", i);
    }),
    other("miss_func", (add) => {
      for (const i of range(0, 8)) add("original", i);
      for (const i of range(8, 16)) add("acted_in_empty_turn", i);
    }),
  ];
}

/** bfcl-eval's verdict per case name, from its own multi_turn_checker. */
interface TheirVerdict {
  valid: boolean;
  error_type: string | null;
  /** The model calls' result texts per turn, as bfcl-eval's execution gives them. */
  results: string[][];
}

function theirVerdicts(cases: Case[]): Promise<Map<string, TheirVerdict>> {
  const input = cases
    .map((c) =>
      JSON.stringify({
        case: c.name,
        entry: {
          id: c.entry.id,
          involved_classes: c.entry.involved_classes,
          initial_config: c.entry.initial_config,
        },
        ground_truth: c.truth,
        // one call per step, as a model that calls one function at a time
        model: c.model.map((turn) => turn.map((m) => [m.python])),
      }),
    )
    .join("\n");
  return new Promise((resolve, reject) => {
    const child = spawn(join(BFCL_VENV, "bin/python"), [VERDICTS_SCRIPT], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      err = (err + d).slice(-4000);
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`bfcl_checker_verdicts.py exited ${code}: ${err}`));
      const lines = out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as TheirVerdict & { case: string });
      resolve(new Map(lines.map(({ case: name, ...verdict }) => [name, verdict])));
    });
    child.stdin.end(`${input}\n`);
  });
}

interface OurVerdict {
  valid: boolean;
  /** The model calls' result texts per user turn, as the gateway answered them. */
  results: string[][];
  components: Record<string, number>;
  error: unknown;
  details: Record<string, string>;
}

/** The case's calls as the model's, through the gateway, recorded as a trajectory; then scored. */
async function ourVerdict(gw: InProcessGateway, c: Case): Promise<OurVerdict> {
  const episodes = gatewayEpisodes(gw.client);
  const tools = gatewayTools(gw.client);
  const spec: Parameters<typeof trajectoryWith>[0] = [];
  const userTurns: { index: number; turn: number | null }[] = [];
  const snapshots: Json[] = [];
  const results: string[][] = [];
  const id = await episodes.start("bfcl", c.task.environment.config);
  try {
    for (const [k, turn] of c.model.entries()) {
      userTurns.push({ index: k, turn: k === 0 ? null : spec.length });
      if (k > 0) spec.push({ kind: "observation" });
      results.push([]);
      for (const { call } of turn) {
        const [o] = await tools.callTools(
          [{ name: `bfcl__${call.name}`, arguments: call.arguments, episodeId: id }],
          { trajectoryId: c.name, deadlineMs: 30_000 },
        );
        const code = o!.errorCode !== "OK" ? o!.errorCode : o!.isError ? "TOOL_ERROR" : null;
        results[k]!.push(o!.text);
        spec.push({
          kind: "sampled",
          calls: [{ name: call.name, result: o!.text, error_code: code, is_error: code !== null }],
        });
        spec.push({ kind: "observation" });
      }
      spec.push({ kind: "sampled" });
      const final = k === c.model.length - 1;
      snapshots.push({ user_turn: k, ...(final ? { final: true } : {}), state: await episodes.snapshot(id) });
    }
  } finally {
    await episodes.end(id);
  }
  const trajectory: Trajectory = {
    ...trajectoryWith(spec),
    metadata: { user_turns: userTurns, environment: { server: "bfcl", snapshots } },
  };
  const ctx = { tools, episodes };
  const result = await createRewardFn([{ type: "bfcl_state" }, { type: "bfcl_response" }]).score(
    { task: taskSchema.parse(c.task), trajectory, sampledTexts: [], answer: null, malformedTurns: 0 },
    ctx,
  );
  return {
    valid: result.components.bfcl_state === 1 && result.components.bfcl_response === 1,
    results,
    components: result.components,
    error: result.error,
    details: result.details,
  };
}

async function ourVerdicts(gw: InProcessGateway, cases: Case[]): Promise<Map<string, OurVerdict>> {
  const out = new Map<string, OurVerdict>();
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++]!;
      out.set(c.name, await ourVerdict(gw, c));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return out;
}

describe.skipIf(!READY)("bfcl_state + bfcl_response against bfcl-eval's multi_turn_checker", () => {
  let gw: InProcessGateway;
  let cases: Case[];
  beforeAll(async () => {
    const [built] = await Promise.all([
      Promise.all(sources().map(buildCases)),
      (async () => {
        gw = await startTestGateway({
          servers: {
            bfcl: { command: process.execPath, args: [RLF, "env", "bfcl", "--workers", "2", "--stdio"] },
          },
        });
      })(),
    ]);
    cases = built.flat();
  }, 90_000);
  afterAll(async () => {
    await gw?.stop();
  });

  it("agrees case by case on ≥ 100 entries, original and perturbed", async () => {
    const [theirs, ours] = await Promise.all([theirVerdicts(cases), ourVerdicts(gw, cases)]);
    const groupOf = (c: Case) => `${c.task.data_source.replace(/^bfcl_multi_turn_/, "")}/${c.kind}`;
    const groups = [...new Set(cases.map(groupOf))];
    const table = groups.map((group) => {
      const of = cases.filter((c) => groupOf(c) === group);
      return {
        group,
        cases: of.length,
        bfcl_valid: of.filter((c) => theirs.get(c.name)?.valid).length,
        ours_valid: of.filter((c) => ours.get(c.name)?.valid).length,
      };
    });
    // why bfcl-eval failed a case (its first failing turn's check), and which of ours failed it
    const reasons = new Map<string, number>();
    for (const c of cases) {
      const t = theirs.get(c.name);
      const o = ours.get(c.name);
      if (t === undefined || t.valid || o === undefined) continue;
      const mine = ["bfcl_state", "bfcl_response"].filter((n) => o.components[n] !== 1).join("+");
      const key = `${t.error_type} → ours ${mine}`;
      reasons.set(key, (reasons.get(key) ?? 0) + 1);
    }
    console.log(
      `BFCL checker parity (${cases.length} cases):\n${table.map((r) => JSON.stringify(r)).join("\n")}\n` +
        [...reasons].map(([k, n]) => `${n} × ${k}`).join("\n"),
    );

    expect(new Set(cases.map((c) => c.task.id)).size).toBeGreaterThanOrEqual(100);
    expect(cases.filter((c) => c.kind === "wrong_argument").length).toBeGreaterThanOrEqual(50);
    expect(theirs.size).toBe(cases.length);
    // never a reward_error: every replay and call went through
    expect(
      cases.filter((c) => ours.get(c.name)?.error !== null).map((c) => [c.name, ours.get(c.name)?.error]),
    ).toEqual([]);
    const disagreements = cases
      .filter((c) => theirs.get(c.name)?.valid !== ours.get(c.name)?.valid)
      .map((c) => ({ case: c.name, bfcl: theirs.get(c.name), ours: ours.get(c.name) }));
    expect(disagreements).toEqual([]);

    // Result texts: ours (the gateway's: JSON of the returned value, "TOOL_ERROR: Type: message" for a
    // raise) are not bfcl-eval's (json.dumps / str(), "Error during execution: message"), but they
    // must be equal exactly when bfcl-eval's are, call by call: a one-to-one map between the two. One
    // known difference: tool calls and results travel as JSON, where 50.0 is 50 (bfcl-eval's texts
    // tell `{"fuelLevel": 50.0}` from `{"fuelLevel": 50}`), so whole floats are read as integers here.
    const wholeFloats = (text: string) => text.replace(/([:[,(]\s*)(-?\d+)\.0(?=[,\])}\s]|$)/g, "$1$2");
    const toOurs = new Map<string, Set<string>>();
    const toTheirs = new Map<string, Set<string>>();
    const link = (m: Map<string, Set<string>>, a: string, b: string) =>
      m.set(a, (m.get(a) ?? new Set()).add(b));
    let texts = 0;
    for (const c of cases) {
      const t = theirs.get(c.name)!.results;
      const o = ours.get(c.name)!.results;
      expect(
        o.map((turn) => turn.length),
        c.name,
      ).toEqual(t.map((turn) => turn.length));
      for (const [k, turn] of t.entries()) {
        for (const [j, raw] of turn.entries()) {
          const text = wholeFloats(raw);
          link(toOurs, text, o[k]![j]!);
          link(toTheirs, o[k]![j]!, text);
          texts++;
        }
      }
    }
    const ambiguous = (m: Map<string, Set<string>>) =>
      [...m].filter(([, s]) => s.size > 1).map(([a, s]) => [a, [...s]]);
    console.log(
      `${texts} result texts, ${toOurs.size} distinct in bfcl-eval, ${toTheirs.size} distinct in ours`,
    );
    expect(ambiguous(toOurs)).toEqual([]);
    expect(ambiguous(toTheirs)).toEqual([]);
    // component by component: bfcl-eval's first failing check fails the same component of ours
    const failing = (c: Case, type: string) =>
      theirs.get(c.name)?.error_type === type ? [c.name, ours.get(c.name)?.components] : [];
    for (const [type, component] of [
      ["multi_turn:instance_state_mismatch", "bfcl_state"],
      ["multi_turn:execution_response_mismatch", "bfcl_response"],
      ["multi_turn:empty_turn_model_response", "bfcl_response"],
    ] as const) {
      const named = cases.map((c) => failing(c, type)).filter((x) => x.length > 0);
      expect(
        named.filter(([, components]) => (components as Record<string, number>)[component] !== 0),
        type,
      ).toEqual([]);
    }
    // the original ground truth is valid on both sides; most perturbations are caught by both
    for (const row of table.filter((r) => r.group.endsWith("/original")))
      expect(row.ours_valid).toBe(row.cases);
    const wrong = cases.filter((c) => c.kind === "wrong_argument");
    expect(wrong.filter((c) => theirs.get(c.name)?.valid).length).toBeLessThan(wrong.length / 2);
  }, 600_000);
});

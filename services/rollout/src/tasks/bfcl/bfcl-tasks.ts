// `rlf data bfcl`: BFCL multi-turn entries (base, long_context, miss_func, miss_param) as rollout tasks.
// Each task carries the per-turn user messages, the environment to start (`{server, config:
// {involved_classes, initial_config}}`), the functions offered per turn under BFCL's own names with an
// alias map to the gateway's `server__name`, and the ground-truth calls of every turn as
// `{name, arguments}`; a long_context entry's config says `long_context: true`. Held-out functions
// (miss_func's `missed_function`) are offered from their turn on, whose empty user turn gets
// bfcl-eval's own message, exactly as bfcl-eval's inference loop does.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Task, TaskTurn } from "@rlfactory/contracts";
import { z } from "zod";
import { DatasetError, openJsonlRows } from "../dataset-rows.ts";
import { PythonCallError, parsePythonCall } from "./python-call.ts";

/** Which func-doc file (`multi_turn_func_doc/<file>`) describes each BFCL multi-turn class. */
export const BFCL_CLASS_FUNC_DOC_FILES: Readonly<Record<string, string>> = Object.freeze({
  GorillaFileSystem: "gorilla_file_system.json",
  MathAPI: "math_api.json",
  MessageAPI: "message_api.json",
  TwitterAPI: "posting_api.json",
  TicketAPI: "ticket_api.json",
  TradingBot: "trading_bot.json",
  TravelAPI: "travel_booking.json",
  VehicleControlAPI: "vehicle_control.json",
});

/** bfcl-eval's user message for a miss_func turn whose held-out functions are now offered. */
export const BFCL_HOLDOUT_TURN_MESSAGE =
  "I have updated some more functions you can choose from. What about now?";

const messageSchema = z.looseObject({
  role: z.enum(["system", "user", "assistant"]),
  content: z.string(),
});

const entrySchema = z.looseObject({
  id: z.string().min(1),
  question: z.array(z.array(messageSchema)).min(1),
  initial_config: z.record(z.string(), z.unknown()).default({}),
  path: z.array(z.string()).optional(),
  involved_classes: z.array(z.string()).min(1),
  /** miss_func: turn index (as a string) → names of the functions held out until that turn. */
  missed_function: z.record(z.string().regex(/^\d+$/, "a turn index"), z.array(z.string())).optional(),
  excluded_function: z.array(z.string()).optional(),
});
type Entry = z.infer<typeof entrySchema>;

const answerSchema = z.looseObject({
  id: z.string().min(1),
  ground_truth: z.array(z.array(z.string())),
});

const funcDocSchema = z.looseObject({
  name: z.string().min(1),
  description: z.string().optional(),
  parameters: z.looseObject({ properties: z.record(z.string(), z.unknown()).default({}) }),
});
export type BfclFuncDoc = z.infer<typeof funcDocSchema>;

/** One ground-truth call, under the model-visible (BFCL) name. */
export interface BfclCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** A later user turn of a BFCL task: a contract TaskTurn whose ground truth is that turn's calls. */
export interface BfclTaskTurn extends TaskTurn {
  ground_truth: BfclCall[];
}

/** A task row as `rlf data bfcl` writes it (one JSON line each): a contract Task, narrowed. */
export interface BfclTask extends Task {
  /** The first turn's ground-truth calls (later turns carry their own in `turns[i].ground_truth`). */
  ground_truth: BfclCall[];
  environment: {
    server: string;
    /** `long_context: true` for long_context (and composite) entries: BFCL loads their scenarios so. */
    config: { involved_classes: string[]; initial_config: Record<string, unknown>; long_context?: true };
  };
  tool_aliases: Record<string, string>;
  tools: string[];
  turns: BfclTaskTurn[];
}

export interface BfclConvertOptions {
  /** BFCL question file (JSON Lines): `BFCL_v4_multi_turn_*.json`. */
  questions: string;
  /** Its possible-answer file (JSON Lines, same ids). */
  answers: string;
  /** The `multi_turn_func_doc` folder. */
  funcDocs: string;
  /** The environment server's name on the gateway (default `bfcl`): aliases point at `SERVER__name`. */
  server?: string;
}

/** Reads the BFCL files and converts every entry; any problem throws a DatasetError naming file, line and field. */
export async function convertBfclTasks(opts: BfclConvertOptions): Promise<BfclTask[]> {
  const server = opts.server ?? "bfcl";
  if (!/^[A-Za-z0-9_-]+$/.test(server)) throw new DatasetError(`bad server name "${server}"`);
  const docs = await readFuncDocs(opts.funcDocs);
  const answers = await readAnswers(opts.answers);
  const rows = await openJsonlRows(opts.questions);
  const located = await rows.read([...Array(rows.count).keys()]);
  const seen = new Map<string, string>();
  const tasks: BfclTask[] = [];
  for (const { row, where } of located) {
    const entry = parseAt(entrySchema, row, where);
    const first = seen.get(entry.id);
    if (first !== undefined)
      throw new DatasetError(`${where}: id: "${entry.id}" repeated (first at ${first})`);
    seen.set(entry.id, where);
    const answer = answers.get(entry.id);
    if (answer === undefined) {
      throw new DatasetError(`${where}: id: "${entry.id}" has no answer in ${opts.answers}`);
    }
    tasks.push(bfclTask(entry, answer, docs, server, where));
  }
  return tasks;
}

/** The func docs of every known class present in `dir` (JSON Lines files, one function per line). */
export async function readFuncDocs(dir: string): Promise<Map<string, BfclFuncDoc[]>> {
  let present: Set<string>;
  try {
    present = new Set(await readdir(dir));
  } catch (e) {
    throw new DatasetError(`cannot read the func-doc folder ${dir}: ${(e as Error).message}`);
  }
  const out = new Map<string, BfclFuncDoc[]>();
  for (const [cls, file] of Object.entries(BFCL_CLASS_FUNC_DOC_FILES)) {
    if (!present.has(file)) continue;
    const rows = await openJsonlRows(join(dir, file));
    const docs = (await rows.read([...Array(rows.count).keys()])).map(({ row, where }) =>
      parseAt(funcDocSchema, row, where),
    );
    out.set(cls, docs);
  }
  return out;
}

async function readAnswers(path: string): Promise<Map<string, { where: string; calls: string[][] }>> {
  const rows = await openJsonlRows(path);
  const out = new Map<string, { where: string; calls: string[][] }>();
  for (const { row, where } of await rows.read([...Array(rows.count).keys()])) {
    const a = parseAt(answerSchema, row, where);
    if (out.has(a.id))
      throw new DatasetError(`${where}: id: "${a.id}" repeated (first at ${out.get(a.id)!.where})`);
    out.set(a.id, { where, calls: a.ground_truth });
  }
  return out;
}

function parseAt<T extends z.ZodType>(schema: T, row: unknown, where: string): z.output<T> {
  const parsed = schema.safeParse(row);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.length === 0 ? "(row)" : formatPath(issue.path);
  throw new DatasetError(`${where}: ${field}: ${issue.message}`);
}

function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join("");
}

/** One entry as a task; `where` is the question file and line, for errors. */
function bfclTask(
  entry: Entry,
  answer: { where: string; calls: string[][] },
  docs: ReadonlyMap<string, readonly BfclFuncDoc[]>,
  server: string,
  where: string,
): BfclTask {
  const fail = (field: string, message: string): never => {
    throw new DatasetError(`${where}: ${field}: ${message} (entry ${entry.id})`);
  };

  // The functions of the involved classes, in bfcl-eval's order.
  const functions = new Map<string, BfclFuncDoc>();
  entry.involved_classes.forEach((cls, i) => {
    const classDocs = docs.get(cls);
    if (classDocs === undefined) {
      const known = Object.keys(BFCL_CLASS_FUNC_DOC_FILES).filter((c) => docs.has(c));
      fail(`involved_classes[${i}]`, `unknown class "${cls}" (func docs for: ${known.join(", ")})`);
    }
    for (const doc of classDocs!) {
      if (functions.has(doc.name)) fail(`involved_classes[${i}]`, `function "${doc.name}" defined twice`);
      functions.set(doc.name, doc);
    }
  });

  // miss_func: held out until their turn.
  const turnCount = entry.question.length;
  const heldOut = new Map<number, string[]>();
  for (const [key, names] of Object.entries(entry.missed_function ?? {})) {
    const turn = Number(key);
    const field = `missed_function.${key}`;
    if (turn < 1 || turn >= turnCount)
      fail(field, `turn ${turn} is not a later turn (the entry has ${turnCount})`);
    if (entry.question[turn]!.length !== 0)
      fail(`question[${turn}]`, "a held-out turn must have no messages");
    for (const name of names)
      if (!functions.has(name)) fail(field, `"${name}" is not a function of the involved classes`);
    heldOut.set(turn, names);
  }
  const withheld = new Set([...heldOut.values()].flat());

  // Ground-truth problems name the answer file's line.
  const failAnswer = (field: string, message: string): never => {
    throw new DatasetError(`${answer.where}: ${field}: ${message} (entry ${entry.id})`);
  };
  if (answer.calls.length !== turnCount) {
    failAnswer("ground_truth", `${answer.calls.length} turns, but the entry (${where}) has ${turnCount}`);
  }
  // A call whose arguments contradict its function's schema stays in the ground truth, as in BFCL, and
  // is also listed in extra_info.off_schema_ground_truth: the gateway refuses it (INVALID_ARGUMENTS)
  // before it reaches the environment — the model's identical call too — so it changes no state, and
  // the reward replay takes the refusal as its result. (bfcl-eval runs it unchecked:
  // multi_turn_base_173's close_ticket(ticket_id='ticket_001') answers "not found", no state change.)
  const offSchema: { user_turn: number; call: string; reason: string }[] = [];
  const groundTruth = answer.calls.map((calls, turn) =>
    calls.map((text, k) => {
      const call = groundTruthCall(text, functions, (m) => failAnswer(`ground_truth[${turn}][${k}]`, m));
      const problem = schemaProblem(call, functions.get(call.name)!);
      if (problem !== undefined) offSchema.push({ user_turn: turn, call: text, reason: problem });
      return call;
    }),
  );

  const firstTurn = entry.question[0]!;
  if (firstTurn.length === 0 || !firstTurn.some((m) => m.role === "user")) {
    fail("question[0]", "the first turn needs a user message");
  }
  let offered = [...functions.keys()].filter((n) => !withheld.has(n));
  const tools = offered;
  const turns: BfclTaskTurn[] = [];
  for (let turn = 1; turn < turnCount; turn++) {
    const messages = entry.question[turn]!;
    const added = heldOut.get(turn);
    let content: string;
    if (added !== undefined) {
      content = BFCL_HOLDOUT_TURN_MESSAGE;
    } else {
      if (messages.length !== 1 || messages[0]!.role !== "user" || messages[0]!.content === "") {
        fail(
          `question[${turn}]`,
          `a later turn must hold exactly one non-empty user message (got ${messages.length} messages)`,
        );
      }
      content = messages[0]!.content;
    }
    if (added !== undefined) {
      const now = new Set([...offered, ...added]);
      offered = [...functions.keys()].filter((n) => now.has(n));
      turns.push({ content, tools: offered, ground_truth: groundTruth[turn]! });
    } else {
      turns.push({ content, ground_truth: groundTruth[turn]! });
    }
  }

  const category = entry.id.replace(/_\d+$/, "");
  return {
    id: entry.id,
    data_source: `bfcl_${category}`,
    prompt: firstTurn.map((m) => ({ role: m.role, content: m.content })),
    ground_truth: groundTruth[0]!,
    extra_info: {
      category,
      ...(entry.path === undefined ? {} : { path: entry.path }),
      ...(entry.excluded_function === undefined ? {} : { excluded_function: entry.excluded_function }),
      ...(offSchema.length === 0 ? {} : { off_schema_ground_truth: offSchema }),
    },
    environment: {
      server,
      config: {
        involved_classes: entry.involved_classes,
        initial_config: entry.initial_config,
        ...(isLongContext(category) ? { long_context: true as const } : {}),
      },
    },
    tool_aliases: Object.fromEntries([...functions.keys()].map((n) => [n, `${server}__${n}`])),
    tools,
    turns,
  };
}

/**
 * Whether bfcl-eval loads the category's scenarios with `long_context=True` (its multi_turn_checker's
 * rule: the category name holds `long_context` or `composite`).
 */
export function isLongContext(category: string): boolean {
  return category.includes("long_context") || category.includes("composite");
}

/** A ground-truth string as `{name, arguments}`: positional arguments take the func doc's parameter names, in order. */
function groundTruthCall(
  text: string,
  functions: ReadonlyMap<string, BfclFuncDoc>,
  fail: (message: string) => never,
): BfclCall {
  let call: ReturnType<typeof parsePythonCall>;
  try {
    call = parsePythonCall(text);
  } catch (e) {
    if (!(e instanceof PythonCallError)) throw e;
    return fail(`cannot read ${JSON.stringify(text)}: ${e.message}`);
  }
  const doc = functions.get(call.name);
  if (doc === undefined)
    return fail(`${JSON.stringify(text)} calls "${call.name}", not a function of the involved classes`);
  const params = Object.keys(doc.parameters.properties);
  if (call.args.length > params.length) {
    return fail(
      `${JSON.stringify(text)}: ${call.args.length} positional arguments, "${call.name}" takes ${params.length}`,
    );
  }
  const args: Record<string, unknown> = {};
  call.args.forEach((v, i) => {
    args[params[i]!] = v;
  });
  for (const [k, v] of Object.entries(call.kwargs)) {
    if (!params.includes(k)) fail(`${JSON.stringify(text)}: "${call.name}" has no parameter "${k}"`);
    if (Object.hasOwn(args, k)) fail(`${JSON.stringify(text)}: argument "${k}" given twice`);
    Object.defineProperty(args, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return { name: call.name, arguments: args };
}

/** JSON types of BFCL's func-doc parameter types (the environment server publishes the same schema). */
const BFCL_JSON_TYPES: Readonly<Record<string, (v: unknown) => boolean>> = {
  string: (v) => typeof v === "string",
  integer: (v) => Number.isInteger(v),
  int: (v) => Number.isInteger(v),
  float: (v) => typeof v === "number",
  number: (v) => typeof v === "number",
  boolean: (v) => typeof v === "boolean",
  bool: (v) => typeof v === "boolean",
  array: Array.isArray,
  tuple: Array.isArray,
  dict: (v) => v !== null && typeof v === "object" && !Array.isArray(v),
  object: (v) => v !== null && typeof v === "object" && !Array.isArray(v),
};

/** Why `call`'s arguments break its func doc's schema (a missing required or a mistyped argument), if they do. */
function schemaProblem(call: BfclCall, doc: BfclFuncDoc): string | undefined {
  const required = Array.isArray(doc.parameters.required) ? (doc.parameters.required as unknown[]) : [];
  for (const name of required)
    if (typeof name === "string" && !Object.hasOwn(call.arguments, name))
      return `required argument "${name}" is missing`;
  for (const [name, value] of Object.entries(call.arguments)) {
    const type = (doc.parameters.properties[name] as { type?: unknown } | undefined)?.type;
    const check = typeof type === "string" ? BFCL_JSON_TYPES[type] : undefined;
    if (check !== undefined && !check(value))
      return `argument "${name}" is ${JSON.stringify(value)}, not of its schema's type ${type}`;
  }
  return undefined;
}

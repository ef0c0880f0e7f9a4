// The four multi-turn categories the converter takes (base, long_context, miss_func, miss_param), from
// the data files bfcl-eval ships in the environments venv (`npm run setup:environments`; skipped with a
// warning without it): every entry converts, miss_func withholds exactly its missed functions until
// their turn, and every ground-truth call reads as Python's own `ast.literal_eval` reads it.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { taskSchema } from "@rlfactory/contracts";
import { describe, expect, it } from "vitest";
import { BFCL_HOLDOUT_TURN_MESSAGE, type BfclTask, convertBfclTasks } from "./bfcl-tasks.ts";

const VENV = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../environments/.venv");
const CATEGORIES = ["base", "long_context", "miss_func", "miss_param"] as const;

function bfclEvalData(): string | undefined {
  const lib = join(VENV, "lib");
  if (!existsSync(lib)) return undefined;
  for (const python of readdirSync(lib)) {
    const data = join(lib, python, "site-packages", "bfcl_eval", "data");
    if (CATEGORIES.every((c) => existsSync(join(data, `BFCL_v4_multi_turn_${c}.json`)))) return data;
  }
  return undefined;
}

const DATA = bfclEvalData();
if (DATA === undefined)
  console.warn(`skipping: bfcl-eval's data is not in ${VENV} (run npm run setup:environments)`);

/** Python's reading of ground-truth strings: positional arguments named by the func doc's parameter order. */
const PYTHON_READER = `
import ast, json, sys
req = json.load(sys.stdin)
out = []
for text in req["calls"]:
    node = ast.parse(text, mode="eval").body
    params = req["params"][node.func.id]
    args = {params[i]: ast.literal_eval(a) for i, a in enumerate(node.args)}
    args.update({k.arg: ast.literal_eval(k.value) for k in node.keywords})
    out.append({"name": node.func.id, "arguments": args})
json.dump(out, sys.stdout)
`;

describe.skipIf(DATA === undefined)("BFCL multi-turn categories from bfcl-eval's data", () => {
  const data = DATA!;
  const convert = (category: string) =>
    convertBfclTasks({
      questions: join(data, `BFCL_v4_multi_turn_${category}.json`),
      answers: join(data, "possible_answer", `BFCL_v4_multi_turn_${category}.json`),
      funcDocs: join(data, "multi_turn_func_doc"),
    });

  it("converts 200 entries of each category into valid tasks", async () => {
    for (const category of CATEGORIES) {
      const tasks = await convert(category);
      expect(tasks, category).toHaveLength(200);
      expect(new Set(tasks.map((t) => t.data_source))).toEqual(new Set([`bfcl_multi_turn_${category}`]));
      for (const t of tasks) expect(taskSchema.safeParse(t).success, t.id).toBe(true);
      if (category !== "miss_func") expect(tasks.flatMap((t) => t.turns).filter((u) => u.tools)).toEqual([]);
      // bfcl-eval loads long_context scenarios with long_context=True: the episode config says so
      const long = tasks.filter((t) => t.environment.config.long_context === true).length;
      expect(long, category).toBe(category === "long_context" ? 200 : 0);
    }
  });

  it("miss_func: each entry offers its missed functions from their turn on, with bfcl-eval's message", async () => {
    const tasks = await convert("miss_func");
    const missed = new Map(
      readFileSync(join(data, "BFCL_v4_multi_turn_miss_func.json"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { id: string; missed_function: Record<string, string[]> })
        .map((e) => [e.id, e.missed_function]),
    );
    for (const t of tasks) {
      const [[turn, names]] = Object.entries(missed.get(t.id)!) as [[string, string[]]];
      const changes = t.turns.flatMap((u, i) => (u.tools === undefined ? [] : [{ u, turn: i + 1 }]));
      expect(
        changes.map((c) => c.turn),
        t.id,
      ).toEqual([Number(turn)]);
      const later = changes[0]!.u;
      expect(later.content).toBe(BFCL_HOLDOUT_TURN_MESSAGE);
      expect(
        t.tools.filter((n) => names.includes(n)),
        t.id,
      ).toEqual([]);
      expect(later.tools!.filter((n) => !t.tools.includes(n)).sort(), t.id).toEqual([...names].sort());
      for (const n of names) expect(t.tool_aliases[n]).toBe(`bfcl__${n}`);
    }
  });

  it("reads every ground-truth call as Python's ast.literal_eval does", async () => {
    const python = join(VENV, "bin", "python");
    const docs = readdirSync(join(data, "multi_turn_func_doc")).flatMap((f) =>
      readFileSync(join(data, "multi_turn_func_doc", f), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { name: string; parameters: { properties: Record<string, unknown> } }),
    );
    const params = Object.fromEntries(docs.map((d) => [d.name, Object.keys(d.parameters.properties)]));
    let total = 0;
    for (const category of CATEGORIES) {
      const tasks: BfclTask[] = await convert(category);
      const ours = tasks.flatMap((t) => [...t.ground_truth, ...t.turns.flatMap((u) => u.ground_truth)]);
      const answers = readFileSync(
        join(data, "possible_answer", `BFCL_v4_multi_turn_${category}.json`),
        "utf8",
      )
        .split("\n")
        .filter(Boolean)
        .flatMap((l) => (JSON.parse(l) as { ground_truth: string[][] }).ground_truth.flat());
      const run = spawnSync(python, ["-c", PYTHON_READER], {
        input: JSON.stringify({ calls: answers, params }),
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(run.status, run.stderr).toBe(0);
      const theirs = JSON.parse(run.stdout) as unknown[];
      expect(ours, category).toEqual(theirs);
      total += ours.length;
    }
    expect(total).toBe(4625);
  }, 60_000);
});

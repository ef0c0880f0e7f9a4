// FTRL's τ-bench through an imported bundle, byte for byte (JSON report; needs an FTRL checkout, so it
// never runs in CI: FTRL's data is third-party and is not copied into this repository):
//
//   npm run bench -- ftrl-replay --ftrl DIR --out FILE.json [--environments retail,airline] [--show N]
//
// DIR is a checkout of FTRL's repository (github.com/bytedance/FTRL): its Data/jsonl/raw/tau-bench/<env>
// directories (tools.json, codes.json, the database files) and Data/jsonl/raw/tau-bench.jsonl (the
// tasks, `{instruction, actions, outputs, data_source}`). For each environment:
//   1. `rlf env import-ftrl DIR/.../tau-bench/<env> --tasks tau-bench.jsonl --data-source tau-bench/<env>`
//      and `rlf data ftrl` (the rollout tasks `db_state` scores);
//   2. the bundle served by `rlf env serve BUNDLE --stdio` behind a real gateway (`rlf gateway`, its own
//      process); every task row of that data source replays its ground-truth `actions` in an episode,
//      one CallTool per action with the action's own arguments text;
//   3. FTRL's direct execution of the same actions (test/support/python/ftrl_replay.py: its Python
//      functions from codes.json on a fresh json.load of the database, as FTRL's evaluation runs them);
//   4. compared: every tool output's text byte for byte, the final database (EndEpisode's state against
//      FTRL's, as values), and `db_state` on a trajectory whose final snapshot is the episode's end state
//      (stored as a diff against its initial state, as a rollout stores a large one) must score 1.
// The report counts, per environment: task rows, distinct tasks, outputs compared / identical, databases
// equal, db_state = 1; and the first --show differences (default 10). Exit status 1 when anything differs.
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual, parseArgs, promisify } from "node:util";
import type { GatewayClient } from "@rlfactory/clients";
import { taskSchema } from "@rlfactory/contracts";
import { ftrlTaskId } from "@rlfactory/environments";
import {
  boundedSnapshot,
  createRewardFn,
  gatewayEpisodes,
  gatewayTools,
  stateDiff,
} from "@rlfactory/rollout";
import { spawnGateway, tempDir } from "@rlfactory/test-support/gateway-harness";
import { trajectoryWith } from "@rlfactory/test-support/reward-fixtures";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, "../..");
const RLF = join(ROOT, "services/cli/src/main.ts");
const REPLAY = join(ROOT, "test/support/python/ftrl_replay.py");
/** `rollout.max_snapshot_bytes`' default: a τ-bench database (2 MB and more) is stored as a diff under it. */
const MAX_SNAPSHOT_BYTES = 262_144;
const run = promisify(execFile);

export const FTRL_REPLAY_USAGE =
  "npm run bench -- ftrl-replay --ftrl DIR --out FILE.json [--environments retail,airline] [--show N]";

export interface FtrlReplayOptions {
  /** The FTRL checkout. */
  ftrl: string;
  /** τ-bench environments to replay (directories of Data/jsonl/raw/tau-bench). */
  environments: string[];
  /** Differences listed in the report (all are counted). */
  show: number;
}

export function ftrlReplayBenchArgs(argv: string[]): { out: string; options: FtrlReplayOptions } {
  const { values } = parseArgs({
    args: argv,
    options: {
      ftrl: { type: "string" },
      out: { type: "string", default: "bench-ftrl-replay.json" },
      environments: { type: "string", default: "retail,airline" },
      show: { type: "string", default: "10" },
    },
  });
  if (values.ftrl === undefined) throw new Error(`--ftrl DIR is required\nusage: ${FTRL_REPLAY_USAGE}`);
  const environments = values.environments.split(",").filter((e) => e !== "");
  for (const env of environments) {
    const dir = join(values.ftrl, "Data/jsonl/raw/tau-bench", env);
    if (!existsSync(join(dir, "codes.json")))
      throw new Error(`${dir}: no FTRL τ-bench environment there (codes.json missing)`);
  }
  if (!existsSync(tasksFile(values.ftrl)))
    throw new Error(`${tasksFile(values.ftrl)}: missing (FTRL's τ-bench tasks)`);
  const show = Number(values.show);
  if (!Number.isInteger(show) || show < 0) throw new Error(`--show must be an integer >= 0`);
  return { out: values.out, options: { ftrl: values.ftrl, environments, show } };
}

const tasksFile = (ftrl: string) => join(ftrl, "Data/jsonl/raw/tau-bench.jsonl");

interface Action {
  function: { name: string; arguments: string };
}
interface Row {
  line: number;
  id: string;
  actions: Action[];
}
interface Direct {
  line: number;
  outputs: string[];
  data: unknown;
}

/** A difference the report lists. */
type Difference =
  | {
      kind: "output";
      line: number;
      task: string;
      call: number;
      tool: string;
      arguments: string;
      gateway: { error_code: string; text: string };
      ftrl: string;
    }
  | { kind: "database"; line: number; task: string; paths: string[] }
  | { kind: "db_state"; line: number; task: string; value: number | undefined; detail: string };

interface EnvironmentReport {
  data_source: string;
  bundle_hash: string;
  task_rows: number;
  distinct_tasks: number;
  outputs_compared: number;
  outputs_identical: number;
  /** FTRL's outputs holding what JSON through JS would change: an `N.0` float, digit-string keys not ascending. */
  outputs_with_n0_floats: number;
  outputs_with_digit_keys_out_of_order: number;
  databases_equal: number;
  db_state_one: number;
  differences: number;
  first_differences: Difference[];
}

/** Whether some object in `text` has digit-string keys not in ascending order (a JS object would sort them). */
function digitKeysOutOfOrder(text: string): boolean {
  const keys = [...text.matchAll(/"(\d+)": \{/g)].map((m) => BigInt(m[1] as string));
  return keys.some((k, i) => i > 0 && k < (keys[i - 1] as bigint));
}

function taskRows(file: string, dataSource: string): Row[] {
  const rows: Row[] = [];
  for (const [line, text] of readFileSync(file, "utf8").split("\n").entries()) {
    if (text.trim() === "") continue;
    const row = JSON.parse(text) as Record<string, unknown>;
    if (row.data_source !== dataSource) continue;
    rows.push({ line, id: ftrlTaskId(row), actions: row.actions as Action[] });
  }
  return rows;
}

/** FTRL's direct execution of every task row of `dataSource`, one record per row, in file order. */
async function* directExecution(envDir: string, file: string, dataSource: string): AsyncGenerator<Direct> {
  const child = spawn("python3", [REPLAY, envDir, file, "--data-source", dataSource], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number | null>((res) => child.once("close", (code) => res(code)));
  try {
    for await (const line of createInterface({ input: child.stdout, crlfDelay: Infinity }))
      if (line.trim() !== "") yield JSON.parse(line) as Direct;
    const code = await exited;
    if (code !== 0) throw new Error(`ftrl_replay.py exited with ${code}: ${stderr}`);
  } finally {
    if (child.exitCode === null) child.kill("SIGTERM");
  }
}

async function replayEnvironment(
  client: GatewayClient,
  server: string,
  envDir: string,
  file: string,
  bundleHash: string,
  tasks: Map<string, unknown>,
  show: number,
): Promise<EnvironmentReport> {
  const dataSource = `tau-bench/${server}`;
  const rows = taskRows(file, dataSource);
  const tools = gatewayTools(client);
  const episodes = gatewayEpisodes(client);
  const reward = createRewardFn([{ type: "db_state" }]);
  const report: EnvironmentReport = {
    data_source: dataSource,
    bundle_hash: bundleHash,
    task_rows: rows.length,
    distinct_tasks: new Set(rows.map((r) => r.id)).size,
    outputs_compared: 0,
    outputs_identical: 0,
    outputs_with_n0_floats: 0,
    outputs_with_digit_keys_out_of_order: 0,
    databases_equal: 0,
    db_state_one: 0,
    differences: 0,
    first_differences: [],
  };
  const differ = (d: Difference) => {
    report.differences += 1;
    if (report.first_differences.length < show) report.first_differences.push(d);
  };
  let index = 0;
  for await (const direct of directExecution(envDir, file, dataSource)) {
    const row = rows[index++];
    if (row === undefined || row.line !== direct.line)
      throw new Error(`ftrl_replay.py gave line ${direct.line}, expected ${row?.line}`);
    const id = await client.startEpisode(server, { task: row.id });
    const initial = await client.snapshotEpisode(id);
    for (const [call, action] of row.actions.entries()) {
      const r = await client.callTool({
        name: `${server}__${action.function.name}`,
        arguments_json: action.function.arguments,
        episode_id: id,
      });
      const text = r.content.map((c) => c.text?.text ?? "").join("");
      report.outputs_compared += 1;
      const ftrl = direct.outputs[call] ?? "";
      if (/\d\.0[,}\]]/.test(ftrl)) report.outputs_with_n0_floats += 1;
      if (digitKeysOutOfOrder(ftrl)) report.outputs_with_digit_keys_out_of_order += 1;
      if (r.error_code === "OK" && text === direct.outputs[call]) report.outputs_identical += 1;
      else
        differ({
          kind: "output",
          line: row.line,
          task: row.id,
          call,
          tool: action.function.name,
          arguments: action.function.arguments,
          gateway: { error_code: r.error_code, text },
          ftrl: direct.outputs[call] ?? "(no output)",
        });
    }
    const final = await client.endEpisode(id);
    if (isDeepStrictEqual(final, direct.data)) report.databases_equal += 1;
    else
      differ({
        kind: "database",
        line: row.line,
        task: row.id,
        paths: stateDiff(direct.data, final)
          .map((op) => op.path)
          .slice(0, 10),
      });

    // db_state, as a rollout scores the trajectory: its final snapshot a diff against the initial state
    const task = taskSchema.parse(tasks.get(row.id));
    const snapshot = boundedSnapshot(0, final, MAX_SNAPSHOT_BYTES, true, { state: initial });
    const trajectory = {
      ...trajectoryWith([{ kind: "sampled" }]),
      metadata: { environment: { server, snapshots: [snapshot] } },
    };
    const scored = await reward.score(
      { task, trajectory, sampledTexts: [], answer: null, malformedTurns: 0 },
      { tools, episodes },
    );
    const value = scored.components.db_state;
    if (value === 1) report.db_state_one += 1;
    else
      differ({
        kind: "db_state",
        line: row.line,
        task: row.id,
        value,
        detail: scored.error ? `${scored.error.code}: ${scored.error.message}` : JSON.stringify(scored),
      });
    if (index % 25 === 0 || index === rows.length)
      process.stderr.write(
        `${server}: ${index}/${rows.length} task rows, ${report.outputs_identical}/${report.outputs_compared} outputs identical\n`,
      );
  }
  if (index !== rows.length) throw new Error(`ftrl_replay.py gave ${index} of ${rows.length} rows`);
  return report;
}

export async function benchFtrlReplay(out: string, options: FtrlReplayOptions): Promise<number> {
  const dir = tempDir("rlf-ftrl-replay-");
  const file = resolve(tasksFile(options.ftrl));
  const rlf = (...args: string[]) => run(process.execPath, [RLF, ...args], { cwd: ROOT });
  const bundles = new Map<string, { envDir: string; hash: string; tasks: Map<string, unknown> }>();
  for (const env of options.environments) {
    const envDir = resolve(options.ftrl, "Data/jsonl/raw/tau-bench", env);
    const bundle = join(dir, `${env}.bundle`);
    const tasksOut = join(dir, `${env}-tasks.jsonl`);
    const dataSource = ["--data-source", `tau-bench/${env}`];
    await rlf("env", "import-ftrl", envDir, "--tasks", file, ...dataSource, "--out", bundle);
    await rlf(
      "data",
      "ftrl",
      "--in",
      file,
      ...dataSource,
      "--bundle",
      bundle,
      "--server",
      env,
      "--out",
      tasksOut,
    );
    const tasks = new Map<string, unknown>();
    for (const line of readFileSync(tasksOut, "utf8").split("\n"))
      if (line.trim() !== "") {
        const task = JSON.parse(line) as { id: string };
        tasks.set(task.id, task);
      }
    const manifest = JSON.parse(readFileSync(join(bundle, "manifest.json"), "utf8")) as { hash: string };
    bundles.set(env, { envDir, hash: manifest.hash, tasks });
  }
  const gw = await spawnGateway({
    servers: Object.fromEntries(
      options.environments.map((env) => [
        env,
        {
          command: process.execPath,
          args: [RLF, "env", "serve", join(dir, `${env}.bundle`), "--name", env, "--stdio"],
        },
      ]),
    ),
  });
  const environments: Record<string, EnvironmentReport> = {};
  try {
    for (const [env, b] of bundles)
      environments[env] = await replayEnvironment(
        gw.client,
        env,
        b.envDir,
        file,
        b.hash,
        b.tasks,
        options.show,
      );
  } finally {
    await gw.stop();
  }
  const report = {
    benchmark: "ftrl-replay",
    date: new Date().toISOString(),
    source: {
      ftrl: resolve(options.ftrl),
      tasks_file: "Data/jsonl/raw/tau-bench.jsonl",
      tasks_sha256: createHash("sha256").update(readFileSync(file)).digest("hex"),
    },
    environments,
  };
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  let clean = true;
  for (const [env, r] of Object.entries(environments)) {
    clean &&= r.differences === 0;
    process.stderr.write(
      `${env}: ${r.task_rows} task rows (${r.distinct_tasks} tasks), ${r.outputs_identical}/${r.outputs_compared} outputs identical, ${r.databases_equal}/${r.task_rows} databases equal, db_state 1 on ${r.db_state_one}/${r.task_rows}\n`,
    );
  }
  process.stderr.write(`written to ${out}\n`);
  return clean ? 0 : 1;
}

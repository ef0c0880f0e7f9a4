// FTRL's formats through the whole path: an environment-form FTRL directory (tools.json, codes.json,
// three database tables) and its τ-bench-style tasks are imported with `rlf env import-ftrl`, turned
// into rollout tasks with `rlf data ftrl`, and served with `rlf env serve` behind a real gateway. Each
// task's ground-truth actions, replayed as tool calls in an episode, end in the same `data` as FTRL's
// own way of running them (test/support/python/ftrl_replay.py: the functions executed directly). A
// per-sample file is imported and one of its tools called through the gateway. `db_state` scores a
// trajectory that did the ground-truth actions 1 and one that deviates 0, from a snapshot stored as a diff.
import { execFile, spawnSync } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import type { ServiceError } from "@grpc/grpc-js";
import { taskSchema } from "@rlfactory/contracts";
import {
  boundedSnapshot,
  createRewardFn,
  gatewayEpisodes,
  gatewayTools,
  groupEpisodes,
} from "@rlfactory/rollout";
import { ftrlSampleRows, STORE_TABLES, writeFtrlEnvironment } from "@rlfactory/test-support/ftrl-fixtures";
import {
  type InProcessGateway,
  RLF,
  ROOT,
  startTestGateway,
  tempDir,
} from "@rlfactory/test-support/gateway-harness";
import { trajectoryWith } from "@rlfactory/test-support/reward-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const REPLAY = join(ROOT, "test/support/python/ftrl_replay.py");

/** Whether bubblewrap can start the workers' sandbox here: under CI it must; elsewhere the test is skipped. */
function haveBubblewrap(): boolean {
  const probe = spawnSync("bwrap", [
    "--unshare-all",
    "--ro-bind",
    "/usr",
    "/usr",
    "--symlink",
    "usr/lib",
    "/lib",
    "--symlink",
    "usr/lib64",
    "/lib64",
    "/usr/bin/python3",
    "-c",
    "pass",
  ]);
  if (probe.status === 0) return true;
  const message = `rlf env serve: bubblewrap cannot start a sandbox here (${probe.error?.message ?? probe.stderr?.toString().trim()})`;
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

interface Task {
  id: string;
  prompt: { role: string; content: string }[];
  ground_truth: unknown;
  environment: { server: string; config: { task: string } };
  tools: string[];
  tool_aliases: Record<string, string>;
  extra_info: Record<string, unknown>;
}

const readTasks = (file: string): Task[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Task);

describe.skipIf(!haveBubblewrap())(
  "FTRL bundles behind the gateway (rlf env import-ftrl, rlf data ftrl, rlf env serve)",
  () => {
    const dir = tempDir("rlf-ftrl-");
    const env = join(dir, "store");
    const envTasks = join(dir, "tau-style.jsonl");
    const samples = join(dir, "samples.jsonl");
    let gw: InProcessGateway;
    let storeTasks: Task[];
    let sampleTasks: Task[];
    const rlf = (...args: string[]) => run(process.execPath, [RLF, ...args], { cwd: ROOT });
    const serve = (bundle: string, name: string) => ({
      command: process.execPath,
      args: [RLF, "env", "serve", bundle, "--name", name, "--workers", "1", "--stdio"],
    });

    beforeAll(async () => {
      writeFtrlEnvironment(env, envTasks);
      writeFileSync(
        samples,
        ftrlSampleRows()
          .map((r) => `${JSON.stringify(r)}\n`)
          .join(""),
      );
      await rlf(
        "env",
        "import-ftrl",
        env,
        "--tasks",
        envTasks,
        "--data-source",
        "store",
        "--out",
        join(dir, "store.bundle"),
      );
      await rlf("env", "import-ftrl", samples, "--out", join(dir, "samples.bundle"));
      await rlf(
        "data",
        "ftrl",
        "--in",
        envTasks,
        "--data-source",
        "store",
        "--bundle",
        join(dir, "store.bundle"),
        "--out",
        join(dir, "store-tasks.jsonl"),
      );
      await rlf(
        "data",
        "ftrl",
        "--in",
        samples,
        "--bundle",
        join(dir, "samples.bundle"),
        "--server",
        "ftrl_samples",
        "--out",
        join(dir, "sample-tasks.jsonl"),
      );
      storeTasks = readTasks(join(dir, "store-tasks.jsonl"));
      sampleTasks = readTasks(join(dir, "sample-tasks.jsonl"));
      gw = await startTestGateway({
        servers: {
          ftrl: serve(join(dir, "store.bundle"), "ftrl"),
          ftrl_samples: serve(join(dir, "samples.bundle"), "ftrl_samples"),
        },
      });
    }, 120_000);
    afterAll(async () => {
      await gw?.stop();
    });

    const call = async (server: string, episodeId: string, tool: string, args: Record<string, unknown>) => {
      const r = await gw.client.callTool({
        name: `${server}__${tool}`,
        arguments_json: JSON.stringify(args),
        episode_id: episodeId,
      });
      return {
        code: r.error_code,
        isError: r.is_error,
        text: r.content.map((c) => c.text?.text ?? "").join(""),
      };
    };

    it("lists every tool of the bundle, and its tasks name them under FTRL's own names", async () => {
      const tools = await gw.client.listTools("ftrl");
      expect(tools.map((t) => t.name).sort()).toEqual(
        ["add_funds", "cancel_order", "get_user", "list_products", "place_order"].map((n) => `ftrl__${n}`),
      );
      expect(storeTasks.map((t) => t.prompt.at(-1)?.content)).toEqual([
        "You are Ann (ann_1). Buy two kettles and a teapot; then cancel the teapot.",
        "You are Bob (bob_2). Cancel your mug order, add 50 to your balance and buy a kettle.",
        "You are Ann (ann_1). Look at the products and your account, then buy the big mug and the teapot.",
      ]);
      for (const t of storeTasks) {
        expect(t.environment).toEqual({ server: "ftrl", config: { task: t.id } });
        expect(Object.entries(t.tool_aliases).every(([alias, target]) => target === `ftrl__${alias}`)).toBe(
          true,
        );
      }
    });

    it("replayed ground-truth actions give FTRL's own outputs byte for byte and end in the same data", async () => {
      // after the actions, read-only calls show the final database as text (key order, float spelling)
      const readBack = [
        { name: "list_products", arguments: {} },
        { name: "get_user", arguments: { user_id: "ann_1" } },
        { name: "get_user", arguments: { user_id: "bob_2" } },
      ];
      let compared = 0;
      for (const [line, task] of storeTasks.entries()) {
        const id = await gw.client.startEpisode("ftrl", task.environment.config);
        const actions = task.ground_truth as { name: string; arguments: Record<string, unknown> }[];
        const results = [];
        for (const action of [...actions, ...readBack]) {
          const target = task.tool_aliases[action.name] as string;
          results.push(await call("ftrl", id, target.slice("ftrl__".length), action.arguments));
        }
        expect(results.map((r) => [r.code, r.isError])).toEqual(results.map(() => ["OK", false]));
        const final = await gw.client.endEpisode(id);
        const { stdout } = await run("/usr/bin/python3", [
          REPLAY,
          env,
          envTasks,
          String(line),
          JSON.stringify(readBack),
        ]);
        const direct = JSON.parse(stdout) as { outputs: string[]; data: typeof STORE_TABLES };
        // every output, the text the model reads, byte for byte
        expect(results.map((r) => r.text)).toEqual(direct.outputs);
        compared += results.length;
        expect(Object.keys(direct.data).sort()).toEqual(["orders", "products", "users"]);
        expect(final).toEqual(direct.data);
        expect(final).not.toEqual(STORE_TABLES); // the actions did change the database
      }
      expect([storeTasks.length, compared]).toEqual([3, 20]);
      // the fixture's point: FTRL's key order and N.0 floats reach the model as FTRL shows them
      const { stdout } = await run("/usr/bin/python3", [REPLAY, env, envTasks, "2"]);
      const [products, , placed] = (JSON.parse(stdout) as { outputs: string[] }).outputs;
      expect(products).toContain('"variants": {"9690244451": {"color": "red", "price": 30.0}, "1151293680"');
      expect(placed).toBe('{"order_id": "O002", "total": 8.0}');
    });

    it("db_state: a trajectory doing the ground-truth actions scores 1, one that deviates 0, read from a diff snapshot", async () => {
      const tools = gatewayTools(gw.client);
      const episodes = gatewayEpisodes(gw.client);
      const reward = createRewardFn([{ type: "db_state" }]);
      const scores: [string, number | undefined, string | undefined][] = [];
      for (const task of storeTasks) {
        const actions = task.ground_truth as { name: string; arguments: Record<string, unknown> }[];
        const deviation = { name: "add_funds", arguments: { user_id: "bob_2", amount: 1 } };
        for (const [kind, calls] of [
          ["ground truth", actions],
          ["deviation", [...actions, deviation]],
        ] as const) {
          // as the rollout does: the group's episode forked, the parent's end state the initial state
          const group = groupEpisodes(episodes, task.environment, 1);
          const id = await group(0);
          for (const call of calls) {
            const out = await tools.call(task.tool_aliases[call.name] as string, call.arguments, {
              episodeId: id,
            });
            expect(out.errorCode).toBe("OK");
          }
          const final = await episodes.end(id);
          const full = Buffer.byteLength(JSON.stringify(final));
          const snapshot = boundedSnapshot(0, final, full - 1, true, await group.initial());
          expect("diff" in snapshot).toBe(true); // stored as its diff: the reward rebuilds the state
          const trajectory = {
            ...trajectoryWith([{ kind: "sampled" }]),
            metadata: { environment: { server: "ftrl", snapshots: [snapshot] } },
          };
          const result = await reward.score(
            { task: taskSchema.parse(task), trajectory, sampledTexts: [], answer: null, malformedTurns: 0 },
            { tools, episodes },
          );
          scores.push([kind, result.components.db_state, result.error?.code]);
        }
      }
      expect(scores).toEqual([
        ["ground truth", 1, undefined],
        ["deviation", 0, undefined],
        ["ground truth", 1, undefined],
        ["deviation", 0, undefined],
        ["ground truth", 1, undefined],
        ["deviation", 0, undefined],
      ]);
    });

    it("shows a tool's result as FTRL does, keeps episodes apart, and refuses an unknown task", async () => {
      const [first] = storeTasks;
      const a = await gw.client.startEpisode("ftrl", first!.environment.config);
      const b = await gw.client.startEpisode("ftrl", {
        data: { users: {}, products: { P9: { price: 1, stock: 9 } }, orders: {} },
      });
      // a dict result is json.dumps'd text (and the structured content)
      const placed = await call("ftrl", a, "place_order", {
        user_id: "ann_1",
        product_id: "P1",
        quantity: 1,
      });
      expect(placed.text).toBe('{"order_id": "O002", "total": 30.0}');
      expect((await call("ftrl", b, "list_products", {})).text).toBe('{"P9": {"price": 1, "stock": 9}}');
      // arguments that break the tool's schema are refused (the bundle's tools.json); the episode goes on
      expect((await call("ftrl", a, "get_user", { user: "ann_1" })).code).toBe("INVALID_ARGUMENTS");
      const [fork] = await gw.client.forkEpisode(a, 1);
      // a fork is a copy in Python: the database's key order and floats as they were
      const products = (await call("ftrl", a, "list_products", {})).text;
      expect((await call("ftrl", fork!, "list_products", {})).text).toBe(products);
      expect(products.indexOf('"9690244451"')).toBeLessThan(products.indexOf('"1151293680"'));
      expect(products).toContain('"price": 198.0');
      await call("ftrl", fork!, "add_funds", { user_id: "ann_1", amount: 5 });
      expect(((await gw.client.endEpisode(a)) as typeof STORE_TABLES).users.ann_1?.balance).toBe(470);
      expect(((await gw.client.endEpisode(fork!)) as typeof STORE_TABLES).users.ann_1?.balance).toBe(475);
      await gw.client.endEpisode(b);
      const refused = await gw.client.startEpisode("ftrl", { task: "no-such-task" }).then(
        () => "started",
        (e: ServiceError) => e.details,
      );
      expect(refused).toMatch(/^UPSTREAM_ERROR.*unknown task 'no-such-task'/);
    });

    it("refuses to serve a bundle whose code was changed after the import, naming the file", async () => {
      const copy = join(dir, "tampered.bundle");
      cpSync(join(dir, "store.bundle"), copy, { recursive: true });
      writeFileSync(
        join(copy, "code/add_funds.py"),
        "def add_funds(data, user_id, amount):\n    return 'free money'\n",
      );
      const served = await rlf("env", "serve", copy, "--stdio").then(
        () => ({ code: 0, stderr: "" }),
        (e: { code: number; stderr: string }) => e,
      );
      expect(served.code).not.toBe(0);
      expect(served.stderr).toMatch(/code\/add_funds\.py: digest mismatch/);
    });

    it("serves a per-sample row's tools: one called through the gateway, another task's tool refused", async () => {
      const [weather, sum] = sampleTasks;
      expect(weather!.tools).toEqual(["get_weather", "to_fahrenheit", "add"]);
      expect(weather!.extra_info.unsolved_set).toEqual({ get_weather: ["21"], to_fahrenheit: ["69.8"] });
      expect(weather!.ground_truth).toBe("69.8");
      // `add` is two different tools in the two rows: each task's alias names its own
      expect(weather!.tool_aliases.add).not.toBe(sum!.tool_aliases.add);
      const id = await gw.client.startEpisode("ftrl_samples", weather!.environment.config);
      const r = await call("ftrl_samples", id, "get_weather", { city: "Paris" });
      expect(r).toEqual({ code: "OK", isError: false, text: '{"celsius": 21, "sky": "clear"}' });
      const other = await call(
        "ftrl_samples",
        id,
        (sum!.tool_aliases.add as string).slice("ftrl_samples__".length),
        { a: 2, b: 3 },
      );
      expect([other.isError, other.text]).toEqual([true, expect.stringContaining("does not offer")]);
      expect(await gw.client.endEpisode(id)).toEqual({ task: weather!.id });
    });
  },
);

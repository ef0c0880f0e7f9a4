// BFCL multi_turn_base, end to end: `rlf data bfcl` over the whole shared file → 200 tasks; a real
// gateway with `rlf env bfcl --stdio` as server `bfcl`; the simulated inference server with the
// `replay` policy (real Qwen3 tokenizer, Hermes tool calls) answering every user turn with its
// ground-truth calls; the rollout engine over every task (group_size 1).
//   - the ground truth replayed: bfcl_state = bfcl_response = task_completion = 1 and status completed
//     on every task;
//   - one argument changed in one call (a deterministic choice among state-changing arguments): the
//     replay policy plays a perturbed task file while the engine scores against the original ground
//     truth → bfcl_state 0 and task_completion < 1 on each of ≥ 50 tasks. A perturbation the
//     environment itself shows to leave every turn's state unchanged is skipped and counted apart.
// Every task that fails prints its id and why.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { bfclPackageDir } from "@rlfactory/environments";
import {
  createRolloutEngine,
  gatewayEpisodes,
  parseRolloutConfig,
  type RolloutConfigInput,
  type Task,
  type Trajectory,
  taskSchema,
} from "@rlfactory/rollout";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { loadReplayTasks } from "@rlfactory/simulators/llm/policies/replay-tasks";
import { type InProcessGateway, RLF, startTestGateway } from "@rlfactory/test-support/gateway-harness";
import { haveSharedData, sharedDataPath } from "@rlfactory/test-support/shared-data";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const ENTRIES = "bfcl/BFCL_v4_multi_turn_base.json";
const ANSWERS = "bfcl/possible_answer/BFCL_v4_multi_turn_base.json";
/** The rollout's and the scorer's calls in flight, suited to a small machine. */
const CONCURRENCY = 4;

function haveVenv(): boolean {
  if (bfclPackageDir() !== undefined) return true;
  const message = "rlf env bfcl: bfcl-eval is not installed (run npm run setup:environments)";
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

const READY = haveVenv() && haveSharedData("BFCL multi_turn_base replay", ENTRIES, ANSWERS);

interface Call {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * Arguments whose value the environment keeps (a file's name or content, an amount, a message): the
 * perturbation changes the first of these in the task, in turn and call order.
 */
const STATE_ARGUMENTS: Readonly<Record<string, string>> = {
  touch: "file_name",
  mkdir: "dir_name",
  echo: "content",
  mv: "destination",
  cp: "destination",
  post_tweet: "content",
  comment: "comment_content",
  send_message: "message",
  place_order: "amount",
  fund_account: "amount",
  add_to_watchlist: "stock",
  fillFuelTank: "fuelAmount",
  set_navigation: "destination",
  set_budget_limit: "budget_limit",
  book_flight: "travel_date",
  create_ticket: "title",
  resolve_ticket: "resolution",
  purchase_insurance: "insurance_cost",
};

/** A value other than `v` of the same type. */
function changed(v: unknown): unknown {
  if (typeof v === "number") return v + 1;
  if (typeof v === "string") {
    if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return `${v.slice(0, 8)}${v.slice(8) === "28" ? "27" : "28"}`;
    const dot = v.lastIndexOf(".");
    return dot > 0 ? `${v.slice(0, dot)}_v2${v.slice(dot)}` : `${v}_v2`;
  }
  return undefined;
}

interface Perturbation {
  task: Task;
  /** Where: user turn, call index, function, argument, old → new. */
  where: string;
}

/** Each user turn's calls (0: the prompt's). */
function turnCalls(task: Task): Call[][] {
  return [task.ground_truth as Call[], ...(task.turns ?? []).map((t) => (t.ground_truth ?? []) as Call[])];
}

/** The task with one state-changing argument of one call changed; undefined when it has none. */
function perturb(task: Task): Perturbation | undefined {
  const turns = turnCalls(task);
  for (let k = 0; k < turns.length; k++) {
    const calls = turns[k]!;
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i]!;
      const arg = STATE_ARGUMENTS[call.name];
      if (arg === undefined || !(arg in call.arguments)) continue;
      const value = changed(call.arguments[arg]);
      if (value === undefined) continue;
      const copy = structuredClone(turns);
      copy[k]![i] = { name: call.name, arguments: { ...call.arguments, [arg]: value } };
      const [first, ...later] = copy;
      return {
        task: {
          ...task,
          ground_truth: first!,
          turns: (task.turns ?? []).map((t, j) => ({ ...t, ground_truth: later[j]! })),
        },
        where: `user turn ${k}, call ${i} ${call.name}: ${arg} ${JSON.stringify(call.arguments[arg])} → ${JSON.stringify(value)}`,
      };
    }
  }
  return undefined;
}

/** Runs `n` async jobs, at most `limit` at a time. */
async function pool<T>(items: readonly T[], limit: number, job: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await job(items[next++]!);
    }),
  );
}

describe.skipIf(!READY)(
  "BFCL multi_turn_base replayed through the rollout engine, gateway and rlf env bfcl",
  () => {
    let dir: string;
    let tasks: Task[];
    let gateway: InProcessGateway;

    function config(sim: SimulatedLlm): RolloutConfigInput {
      return {
        inference: { engine: "vllm", urls: [sim.url], timeout_ms: 120_000 },
        gateway: { address: gateway.gateway.grpcAddress, deadline_ms: 30_000 },
        tokenizer: { path: "qwen3" },
        format: "hermes",
        rollout: {
          group_size: 1,
          max_turns: 32, // two sampled turns per user turn (calls, then the reply); 7 user turns at most
          max_concurrency: CONCURRENCY,
          max_context_tokens: 32_768,
          max_tool_response_tokens: 4096,
          sampling: { temperature: 0, top_p: 1, max_tokens: 2048 },
        },
        reward: {
          components: [
            { type: "bfcl_state", weight: 1 },
            { type: "task_completion", weight: 0 },
            { type: "bfcl_response", weight: 0 },
          ],
        },
        seed: 1,
      };
    }

    /** Every task through the engine, with the simulated LLM replaying `policyFile`. */
    async function rollOut(policyFile: string, batch: Task[]): Promise<Map<string, Trajectory>> {
      const sim = await startSimulatedLlm({
        policy: "replay",
        seed: 3,
        maxModelLen: 40_960,
        policyOptions: { tasks: await loadReplayTasks(policyFile) },
      });
      const engine = await createRolloutEngine(parseRolloutConfig(config(sim)), {
        episodes: gatewayEpisodes(gateway.client),
      });
      try {
        const out = new Map<string, Trajectory>();
        for await (const group of engine.rollout(batch))
          for (const t of group.trajectories) out.set(t.task_id, t);
        return out;
      } finally {
        await engine.close();
        await sim.close();
      }
    }

    /** Episodes live on the gateway's bfcl server (every one ended: 0). */
    async function liveEpisodes(): Promise<number> {
      const text = await (await fetch(`${gateway.gateway.adminUrl}/metrics`)).text();
      return Number(/^rlf_gateway_episodes_live\{server="bfcl"\} (\S+)$/m.exec(text)?.[1] ?? 0);
    }

    /** Why `t` is not the replay's perfect score ("" when it is). */
    function whyNotPerfect(task: Task, t: Trajectory | undefined): string {
      if (t === undefined) return "no trajectory";
      const problems: string[] = [];
      if (t.status !== "completed") problems.push(`status ${t.status} (${t.status_reason})`);
      if (t.reward_components.bfcl_state !== 1) problems.push(`bfcl_state ${t.reward_components.bfcl_state}`);
      if (t.reward_components.task_completion !== 1)
        problems.push(`task_completion ${t.reward_components.task_completion}`);
      if (t.reward_components.bfcl_response !== 1)
        problems.push(`bfcl_response ${t.reward_components.bfcl_response}`);
      if (t.reward_error) problems.push(`reward_error ${JSON.stringify(t.reward_error)}`);
      const truth = turnCalls(task).flat();
      const made = t.tool_calls.map((c) => JSON.stringify([c.name, c.arguments]));
      if (JSON.stringify(made) !== JSON.stringify(truth.map((c) => JSON.stringify([c.name, c.arguments]))))
        problems.push(`tool calls ${made.join(", ")} are not the ground truth's ${truth.length}`);
      // BFCL's own off-schema ground-truth calls (listed by rlf data bfcl) are refused by the gateway,
      // for the model as for the replay: those refusals are expected, any other failure is not.
      const offSchema = (task.extra_info.off_schema_ground_truth as unknown[] | undefined)?.length ?? 0;
      const failed = t.tool_calls
        .filter((c) => c.error_code !== null)
        .filter((c, _, all) => !(c.error_code === "INVALID_ARGUMENTS" && all.length <= offSchema));
      if (failed.length > 0)
        problems.push(`tool calls failed: ${failed.map((c) => `${c.name} ${c.error_code}`).join(", ")}`);
      return problems.join("; ");
    }

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "rlf-bfcl-replay-"));
      const file = join(dir, "tasks.jsonl");
      const [, gw] = await Promise.all([
        run(
          process.execPath,
          [
            RLF,
            "data",
            "bfcl",
            "--in",
            sharedDataPath(ENTRIES),
            "--answers",
            sharedDataPath(ANSWERS),
            "--out",
            file,
          ],
          { timeout: 60_000 },
        ),
        startTestGateway({
          servers: {
            bfcl: {
              command: process.execPath,
              args: [RLF, "env", "bfcl", "--workers", "2", "--stdio"],
              policy: { reconnect: { initial_delay_ms: 100, max_delay_ms: 500 } },
            },
          },
        }),
      ]);
      gateway = gw;
      tasks = readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => taskSchema.parse(JSON.parse(line)));
    }, 120_000);

    afterAll(async () => {
      await gateway?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("the ground truth of every task: bfcl_state = bfcl_response = task_completion = 1, status completed", async () => {
      const entries = readFileSync(sharedDataPath(ENTRIES), "utf8").split("\n").filter(Boolean);
      expect(tasks).toHaveLength(entries.length);
      expect(tasks).toHaveLength(200);
      const trajectories = await rollOut(join(dir, "tasks.jsonl"), tasks);
      const failures = tasks
        .map((task) => ({ id: task.id, why: whyNotPerfect(task, trajectories.get(task.id)) }))
        .filter((f) => f.why !== "")
        .map((f) => `${f.id}: ${f.why}`);
      const perfect = tasks.length - failures.length;
      console.log(`BFCL multi_turn_base replay: ${perfect} of ${tasks.length} tasks at bfcl_state = 1`);
      expect(failures).toEqual([]);
      expect(await liveEpisodes()).toBe(0);
      expect(trajectories.size).toBe(200);
    }, 1_200_000);

    it("one wrong argument in one replayed call: a state mismatch and bfcl_state 0 on each of ≥ 50 tasks", async () => {
      const episodes = gatewayEpisodes(gateway.client);
      /** Each user turn's state after replaying `turns` in a fresh episode (the environment decides). */
      async function statesOf(task: Task, turns: Call[][]): Promise<unknown[]> {
        const env = task.environment!;
        const id = await episodes.start(env.server, env.config);
        try {
          const states: unknown[] = [];
          for (const calls of turns) {
            for (const call of calls) {
              const name = task.tool_aliases?.[call.name] ?? call.name;
              const out = await gateway.client.callTool({
                name,
                arguments_json: JSON.stringify(call.arguments),
                episode_id: id,
              });
              // a tool's own error is part of the calls' effect, as is the gateway's refusal of an
              // off-schema call (no effect); the infrastructure's is not
              if (out.error_code !== "OK" && out.error_code !== "INVALID_ARGUMENTS")
                throw new Error(`${task.id}: ${call.name}: ${out.error_code}`);
            }
            states.push(await episodes.snapshot(id));
          }
          return states;
        } finally {
          await episodes.end(id);
        }
      }
      const perturbed: Perturbation[] = [];
      const skipped: string[] = [];
      await pool(tasks, CONCURRENCY, async (task) => {
        const p = perturb(task);
        if (p === undefined) {
          skipped.push(`${task.id}: no state-changing argument among its calls`);
          return;
        }
        const [before, after] = await Promise.all([
          statesOf(task, turnCalls(task)),
          statesOf(p.task, turnCalls(p.task)),
        ]);
        if (JSON.stringify(before) === JSON.stringify(after)) {
          skipped.push(`${task.id}: ${p.where} leaves every turn's state unchanged`);
          return;
        }
        perturbed.push(p);
      });
      perturbed.sort((a, b) => tasks.indexOf(a.task) - tasks.indexOf(b.task));
      console.log(
        `BFCL perturbed replay: ${perturbed.length} tasks perturbed, ${skipped.length} skipped\n  ${skipped.sort().join("\n  ")}`,
      );
      expect(perturbed.length).toBeGreaterThanOrEqual(50);

      // The replay policy plays the perturbed ground truth; the engine scores against the original.
      const policyFile = join(dir, "perturbed-tasks.jsonl");
      writeFileSync(policyFile, `${perturbed.map((p) => JSON.stringify(p.task)).join("\n")}\n`);
      const originals = perturbed.map((p) => tasks.find((t) => t.id === p.task.id)!);
      const trajectories = await rollOut(policyFile, originals);
      const failures: string[] = [];
      for (const p of perturbed) {
        const t = trajectories.get(p.task.id);
        const why =
          t === undefined
            ? "no trajectory"
            : t.status !== "completed"
              ? `status ${t.status} (${t.status_reason})`
              : t.reward_components.bfcl_state !== 0
                ? `bfcl_state ${t.reward_components.bfcl_state}`
                : !(t.reward !== null && t.reward < 1)
                  ? `reward ${t.reward}`
                  : !((t.reward_components.task_completion ?? 1) < 1)
                    ? `task_completion ${t.reward_components.task_completion}`
                    : "";
        if (why !== "") failures.push(`${p.task.id} (${p.where}): ${why}`);
      }
      console.log(
        `BFCL perturbed replay: ${perturbed.length - failures.length} of ${perturbed.length} perturbed tasks at bfcl_state 0`,
      );
      expect(failures).toEqual([]);
      expect(await liveEpisodes()).toBe(0);
    }, 1_200_000);
  },
);

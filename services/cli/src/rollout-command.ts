// `rlf rollout --config FILE --out DIR`: run a dataset through the rollout engine and write
// trajectories (JSONL as groups complete, then Parquet), summary.json and report.html.
// `rlf rollout serve --config FILE` serves the engine instead (rollout-serve-command.ts).
import { mkdir, rm, writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { Task, Trajectory } from "@rlfactory/contracts";
import { positiveIntArg, UsageError } from "@rlfactory/kit/command-line";
import {
  appendTrajectoriesJsonl,
  createRolloutEngine,
  formatSummary,
  loadRolloutConfig,
  loadTasks,
  type RolloutConfig,
  type RolloutEngine,
  summarizeRollout,
  writeTrajectoriesParquet,
} from "@rlfactory/rollout";
import { startTelemetry } from "@rlfactory/telemetry";
import { SingleBar } from "cli-progress";

export async function runRolloutCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: "string", short: "c" },
      out: { type: "string", short: "o" },
      limit: { type: "string" },
      "group-size": { type: "string" },
      "no-progress": { type: "boolean" },
    },
    strict: true,
  });
  if (!values.config) throw new UsageError("rlf rollout needs --config FILE");
  const config = await loadRolloutConfig(values.config, values.out === undefined ? {} : { out: values.out });
  const outDir = config.output.dir;
  if (outDir === undefined) throw new UsageError("rlf rollout needs --out DIR (or output.dir in the config)");
  if (config.dataset === undefined)
    throw new UsageError(`${values.config} has no dataset: nothing to roll out`);
  const limit = positiveIntArg(values.limit, "--limit");
  const groupSize = positiveIntArg(values["group-size"], "--group-size") ?? config.rollout.group_size;
  const tasks = await loadTasks(limit === undefined ? config.dataset : { ...config.dataset, limit });

  const telemetry = await startTelemetry({ serviceName: "rlf-rollout" });
  const engine = await createRolloutEngine(config, {
    warn: (message) => process.stderr.write(`rlf rollout: warning: ${message}\n`),
  });
  const code = await rollOutAndWrite(engine, {
    config,
    tasks,
    groupSize,
    outDir,
    progress: !values["no-progress"],
    label: "rlf rollout",
  });
  await telemetry.shutdown();
  return code;
}

export interface RollOutAndWriteOptions {
  config: RolloutConfig;
  tasks: Task[];
  groupSize: number;
  outDir: string;
  /** A progress bar on a terminal (else a line every 2 s). */
  progress: boolean;
  /** The prefix of stderr lines (`rlf rollout`, `rlf rollout agent`). */
  label: string;
}

/**
 * Runs the tasks through the engine (closing it) and writes what `rlf rollout` writes: JSONL as groups
 * complete, then summary.json, Parquet and report.html; the summary on stdout. Returns the exit code:
 * 0; 1 when every trajectory failed; 130 when interrupted.
 */
export async function rollOutAndWrite(
  engine: RolloutEngine,
  options: RollOutAndWriteOptions,
): Promise<number> {
  const { config, tasks, groupSize, outDir, label } = options;
  await mkdir(outDir, { recursive: true });
  const jsonl = join(outDir, "trajectories.jsonl");
  await rm(jsonl, { force: true });

  const abort = new AbortController();
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    process.stderr.write(`\n${label}: interrupted, finishing trajectories in flight as aborted\n`);
    abort.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const total = tasks.length * groupSize;
  const showBar = options.progress && process.stderr.isTTY === true;
  const bar = new SingleBar({
    format: "rollout [{bar}] {value}/{total} trajectories | {eta_formatted} left | reward {reward}",
    stream: process.stderr,
    hideCursor: true,
  });
  if (showBar) bar.start(total, 0, { reward: "-" });
  process.stderr.write(`${label}: ${tasks.length} tasks × ${groupSize} samples → ${outDir}\n`);

  const started = performance.now();
  const startedAt = new Date().toISOString();
  const all: Trajectory[] = [];
  let rewardSum = 0;
  let scored = 0;
  let lastLine = 0;
  try {
    for await (const group of engine.rollout(tasks, { groupSize, signal: abort.signal })) {
      await appendTrajectoriesJsonl(jsonl, group.trajectories);
      all.push(...group.trajectories);
      for (const t of group.trajectories) {
        if (t.reward !== null) {
          rewardSum += t.reward;
          scored += 1;
        }
      }
      const reward = scored > 0 ? (rewardSum / scored).toFixed(3) : "-";
      if (showBar) bar.update(all.length, { reward });
      else if (performance.now() - lastLine > 2000 || all.length === total) {
        lastLine = performance.now();
        process.stderr.write(`${label}: ${all.length}/${total} trajectories, reward mean ${reward}\n`);
      }
    }
  } finally {
    if (showBar) bar.stop();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await engine.close();
  }
  const wallMs = performance.now() - started;

  const summary = summarizeRollout(all, { wallMs, startedAt, config: { ...config } });
  await writeFile(join(outDir, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
  if (config.output.parquet) await writeTrajectoriesParquet(join(outDir, "trajectories.parquet"), all);
  if (config.output.html_report) {
    // The console's Run view, exported with the run's data inlined (services/console/src/run-report.ts).
    // A report that cannot be made (the console's app not built) never costs the run: say so, go on.
    try {
      const { writeRunReport } = await import("@rlfactory/console");
      await writeRunReport(join(outDir, "report.html"), {
        runId: basename(resolve(outDir)),
        runDir: outDir,
        title: `rollout ${startedAt}`,
        trajectories: all,
        summary: JSON.parse(JSON.stringify(summary)),
      });
    } catch (err) {
      process.stderr.write(`${label}: report.html not written: ${(err as Error).message}\n`);
    }
  }
  process.stdout.write(`${formatSummary(summary)}\n`);
  process.stdout.write(`wrote ${all.length} trajectories to ${outDir}\n`);
  if (interrupted) return 130;
  const failure = allFailed(all);
  if (failure !== null) {
    process.stderr.write(
      `${label}: every trajectory failed (${all.length} of ${all.length}); most common failure ` +
        `(${failure.count} of ${all.length}): ${failure.reason}\n`,
    );
    return 1;
  }
  return 0;
}

/**
 * When every trajectory failed: the most common failure and how many had it (reasons that differ only
 * in numbers, such as token counts, count as one; the first one is shown); else null.
 */
export function allFailed(trajectories: readonly Trajectory[]): { reason: string; count: number } | null {
  if (trajectories.length === 0 || trajectories.some((t) => t.status !== "failed")) return null;
  const groups = new Map<string, { reason: string; count: number }>();
  for (const t of trajectories) {
    const reason = t.status_reason ?? "no reason given";
    const key = reason.replace(/\d+/g, "#");
    const group = groups.get(key) ?? { reason, count: 0 };
    group.count += 1;
    groups.set(key, group);
  }
  return [...groups.values()].reduce((best, next) => (next.count > best.count ? next : best));
}

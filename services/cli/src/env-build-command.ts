// `rlf env build --config FILE --out DIR [--no-progress]`: the environment factory (@rlfactory/factory)
// against an OpenAI-compatible endpoint; a progress bar per stage on stderr, the summary on stdout.
// A killed build resumes from DIR/stages when run again with the same DIR.
import { parseArgs } from "node:util";
import {
  type BuildProgress,
  formatBuildSummary,
  loadBuildConfig,
  runBuild,
  type Stage,
} from "@rlfactory/factory";
import { UsageError } from "@rlfactory/kit/command-line";
import { MultiBar, Presets, type SingleBar } from "cli-progress";

/** A bar per stage on a TTY; elsewhere one line per stage when it finishes. */
function stageProgress(showBars: boolean): BuildProgress & { stop(): void } {
  const multi = showBars
    ? new MultiBar(
        {
          format: "{stage} [{bar}] {value}/{total}",
          stream: process.stderr,
          hideCursor: true,
          clearOnComplete: false,
        },
        Presets.shades_classic,
      )
    : undefined;
  const bars = new Map<Stage, SingleBar>();
  const counts = new Map<Stage, { total: number; done: number; resumed: number }>();
  return {
    stageStarted(stage, total, alreadyDone) {
      counts.set(stage, { total, done: alreadyDone, resumed: alreadyDone });
      if (multi) bars.set(stage, multi.create(total, alreadyDone, { stage: stage.padEnd(11) }));
    },
    itemDone(stage) {
      const c = counts.get(stage);
      if (c) c.done++;
      bars.get(stage)?.increment();
    },
    stageFinished(stage) {
      const c = counts.get(stage);
      if (!multi && c)
        process.stderr.write(
          `rlf env build: ${stage} ${c.done}/${c.total}${c.resumed > 0 ? ` (${c.resumed} from a previous run)` : ""}\n`,
        );
    },
    stop() {
      multi?.stop();
    },
  };
}

export async function runEnvBuildCommand(argv: string[]): Promise<number> {
  let values: { config?: string; out?: string; "no-progress"?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { config: { type: "string" }, out: { type: "string" }, "no-progress": { type: "boolean" } },
      strict: true,
    }));
  } catch (err) {
    throw new UsageError(`${(err as Error).message}`);
  }
  if (values.config === undefined || values.out === undefined)
    throw new UsageError(`rlf env build needs --config and --out`);
  const config = loadBuildConfig(values.config);
  const progress = stageProgress(values["no-progress"] !== true && process.stderr.isTTY === true);
  try {
    const output = await runBuild(config, values.out, progress);
    progress.stop();
    process.stdout.write(formatBuildSummary(output.summary));
    return 0;
  } finally {
    progress.stop();
  }
}

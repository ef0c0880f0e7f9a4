// `rlf train --config FILE [--out DIR] [--resume]`: GRPO training with multi-turn tool rollouts over
// the Tinker training API (SkyRL's Tinker-compatible server or hosted Tinker), one progress line per
// step. Ctrl-C / SIGTERM stops after checkpointing what is done; a second signal exits at once.
import { parseArgs } from "node:util";
import { UsageError } from "@rlfactory/kit/command-line";
import { startTelemetry } from "@rlfactory/telemetry";
import { loadTrainConfig, runTraining, type StepMetrics, type TrainEvent } from "@rlfactory/train";

export async function runTrainCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: "string", short: "c" },
      out: { type: "string", short: "o" },
      resume: { type: "boolean" },
    },
    strict: true,
  });
  if (!values.config) throw new UsageError("rlf train needs --config FILE");
  const config = await loadTrainConfig(values.config);
  const outDir = values.out ?? config.train.out;
  if (outDir === undefined) throw new UsageError("rlf train needs --out DIR (or train.out in the config)");

  const telemetry = await startTelemetry({ serviceName: "rlf-train" });
  const abort = new AbortController();
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    process.stderr.write("\nrlf train: stopping — finishing the current step's update, then checkpointing\n");
    abort.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    const result = await runTraining(config, {
      outDir,
      ...(values.resume ? { resume: true } : {}),
      signal: abort.signal,
      onEvent: printEvent,
    });
    if (result.status === "already_done") {
      process.stdout.write(
        `rlf train: ${outDir} is already at step ${result.lastStep} of ${config.train.steps}; nothing to do\n`,
      );
    } else {
      const where = result.checkpoint ? ` (checkpoint: step ${result.checkpoint.step})` : "";
      process.stdout.write(
        `rlf train: ${result.status} at step ${result.lastStep} of ${config.train.steps}${where} → ${outDir}\n`,
      );
    }
    return result.status === "interrupted" ? 130 : 0;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await telemetry.shutdown();
  }
}

function printEvent(event: TrainEvent): void {
  switch (event.type) {
    case "start": {
      const from = event.resumedFrom
        ? `resuming after step ${event.resumedFrom.step} from ${event.resumedFrom.state_path}`
        : "starting";
      process.stdout.write(
        `rlf train: ${from}; model ${event.modelId}, steps ${event.firstStep}..${event.steps}, ${event.tasks} tasks\n`,
      );
      return;
    }
    case "step":
      process.stdout.write(`${stepLine(event.metrics)}\n`);
      return;
    case "checkpoint":
      process.stdout.write(
        `rlf train: checkpoint at step ${event.checkpoint.step}: ${event.checkpoint.state_path}\n`,
      );
      return;
    case "retry":
      process.stderr.write(
        `rlf train: retry ${event.attempt} of ${event.endpoint} in ${Math.round(event.delayMs)} ms: ${event.message}\n`,
      );
      return;
    case "warning":
      process.stderr.write(`rlf train: ${event.message}\n`);
      return;
    case "interrupted":
      process.stderr.write(`rlf train: stopped after step ${event.lastStep}\n`);
      return;
  }
}

function stepLine(m: StepMetrics): string {
  const reward = m.reward_mean === null ? "-" : m.reward_mean.toFixed(3);
  const skipped = Object.values(m.skipped).reduce((a, b) => a + b, 0);
  const loss = lossOf(m);
  return (
    `step ${m.step}/${m.steps}  reward ${reward}  datums ${m.datums}/${m.trajectories} (skipped ${skipped})` +
    `  tokens ${m.tokens.sampled}${loss === undefined ? "" : `  loss ${loss.toPrecision(4)}`}` +
    `  ${(m.timings_ms.total / 1000).toFixed(1)} s`
  );
}

/** The loss the server reported, under the names Tinker and SkyRL use. */
function lossOf(m: StepMetrics): number | undefined {
  const fb = m.forward_backward ?? {};
  return fb["loss:sum"] ?? fb["loss:mean"] ?? fb.loss;
}

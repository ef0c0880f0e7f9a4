// `rlf judge [--config FILE] [--http-port 7005] [--grpc-port 50053] [--host 127.0.0.1]`: the judge
// service (HTTP POST /v1/judge + gRPC rlfactory.v1.Judge). Without --config the model backend comes
// from JUDGE_BASE_URL / JUDGE_MODEL / JUDGE_API_KEY; with none it still serves rule graders.
// `rlf judge calibrate --set FILE [--config FILE] [--json]`: judges a labelled set, prints agreement.
import { parseArgs } from "node:util";
import {
  calibrate,
  createJudgeService,
  defaultJudgeLogger,
  formatCalibrationReport,
  JUDGE_GRPC_PORT,
  JUDGE_HTTP_PORT,
  type JudgeConfig,
  judgeConfigFromEnv,
  loadJudgeConfig,
  NO_BACKEND_MESSAGE,
  readCalibrationSet,
  startJudgeServer,
} from "@rlfactory/judge";
import { portArg, stopOnSignals, UsageError } from "@rlfactory/kit/command-line";
import { startTelemetry } from "@rlfactory/telemetry";

export async function runJudgeCommand(argv: string[]): Promise<number> {
  if (argv[0] === "calibrate") return runCalibrateCommand(argv.slice(1));
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      config: { type: "string", short: "c" },
      "http-port": { type: "string" },
      "grpc-port": { type: "string" },
      host: { type: "string" },
    },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new UsageError(`rlf judge: unexpected "${positionals[0]}"`);
  const host = values.host ?? "127.0.0.1";
  const httpPort = values["http-port"] ? portArg(values["http-port"], "--http-port") : JUDGE_HTTP_PORT;
  const grpcPort = values["grpc-port"] ? portArg(values["grpc-port"], "--grpc-port") : JUDGE_GRPC_PORT;
  const config = await judgeConfig(values.config);
  const telemetry = await startTelemetry({ serviceName: "rlf-judge" });
  const log = defaultJudgeLogger();
  const service = createJudgeService(config, { log });
  if (!service.hasBackend) {
    log.warn(`model judgments answer BACKEND_UNAVAILABLE: ${NO_BACKEND_MESSAGE}`);
  }
  let server: Awaited<ReturnType<typeof startJudgeServer>>;
  try {
    server = await startJudgeServer(service, {
      httpHost: host,
      httpPort,
      grpcHost: host,
      grpcPort,
      log,
      maxMessageBytes: config.limits.max_body_bytes,
    });
  } catch (err) {
    await service.close();
    throw err;
  }
  process.stderr.write(`rlf judge: HTTP ${server.httpUrl}/v1/judge, gRPC ${server.grpcAddress}\n`);
  stopOnSignals(async () => {
    await server.close();
    await service.close();
    await telemetry.shutdown();
  });
  return -1;
}

async function runCalibrateCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      set: { type: "string" },
      config: { type: "string", short: "c" },
      json: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (!values.set) throw new UsageError("rlf judge calibrate needs --set FILE");
  const config = await judgeConfig(values.config);
  const set = await readCalibrationSet(values.set);
  const log = defaultJudgeLogger();
  const service = createJudgeService(config, { log });
  try {
    const report = await calibrate(set, service);
    process.stdout.write(
      values.json ? `${JSON.stringify(report, null, 2)}\n` : formatCalibrationReport(report),
    );
  } finally {
    await service.close();
  }
  return 0;
}

function judgeConfig(path: string | undefined): Promise<JudgeConfig> | JudgeConfig {
  return path ? loadJudgeConfig(path) : judgeConfigFromEnv(process.env);
}

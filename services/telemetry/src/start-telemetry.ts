// Process-wide OpenTelemetry tracing, configured only by the standard OTEL_* environment variables.
//
// Tracing is switched on only when an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or OTEL_TRACES_EXPORTER is set, and OTEL_SDK_DISABLED is not
// true. Otherwise nothing is installed: no exporter retrying against localhost:4318, no global
// providers. Metrics and logs signals are never started (we only export traces), and there are no
// auto-instrumentations: spans are created by hand. The SDK (hundreds of modules) is loaded only when
// tracing is asked for, so a process that does not trace does not pay for loading it.
import { DiagLogLevel, diag } from "@opentelemetry/api";
import { diagLogLevelFromString, getBooleanFromEnv, getStringFromEnv } from "@opentelemetry/core";
import { stderrDiagLogger } from "./stderr-diag-logger.ts";

export interface TelemetryOptions {
  /** `service.name` of the resource; OTEL_SERVICE_NAME wins when set. */
  serviceName: string;
}

export interface Telemetry {
  /** Flushes pending spans and stops the SDK. Safe to call more than once. */
  shutdown(): Promise<void>;
}

/** Batch span processor delay when OTEL_BSP_SCHEDULE_DELAY is unset: short, so spans show up promptly. */
const DEFAULT_SCHEDULE_DELAY_MS = "200";

const noop: Telemetry = { shutdown: async () => {} };
let started: Promise<Telemetry> | undefined;

/** Whether the environment asks for trace export at all. */
export function tracingRequested(): boolean {
  if (getBooleanFromEnv("OTEL_SDK_DISABLED")) return false;
  return (
    getStringFromEnv("OTEL_EXPORTER_OTLP_ENDPOINT") !== undefined ||
    getStringFromEnv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") !== undefined ||
    getStringFromEnv("OTEL_TRACES_EXPORTER") !== undefined
  );
}

/**
 * Starts the OTel NodeSDK for this process (once; later calls return the same handle). Exporter,
 * protocol (grpc | http/protobuf | http/json), endpoint, sampler and batch settings all come from
 * the standard environment variables.
 */
export function startTelemetry(opts: TelemetryOptions): Promise<Telemetry> {
  started ??= start(opts).catch((error: unknown) => {
    started = undefined;
    throw error;
  });
  return started;
}

async function start(opts: TelemetryOptions): Promise<Telemetry> {
  if (!tracingRequested()) return noop;
  const serviceName = getStringFromEnv("OTEL_SERVICE_NAME") ?? opts.serviceName;
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  const sdk = new NodeSDK({
    serviceName,
    instrumentations: [],
    metricReaders: [],
    logRecordProcessors: [],
  });
  // The SDK installs a console logger for OTEL_LOG_LEVEL; console.info goes to stdout.
  const logLevel = getStringFromEnv("OTEL_LOG_LEVEL");
  if (logLevel !== undefined) {
    diag.setLogger(stderrDiagLogger, { logLevel: diagLogLevelFromString(logLevel) ?? DiagLogLevel.INFO });
  }
  // The span processors are built from the environment inside start(); default the batch delay there.
  const presetDelay = process.env.OTEL_BSP_SCHEDULE_DELAY;
  if (presetDelay === undefined) process.env.OTEL_BSP_SCHEDULE_DELAY = DEFAULT_SCHEDULE_DELAY_MS;
  try {
    sdk.start();
  } finally {
    if (presetDelay === undefined) delete process.env.OTEL_BSP_SCHEDULE_DELAY;
  }
  let stopping: Promise<void> | undefined;
  return {
    shutdown: () => {
      stopping ??= sdk.shutdown().catch((error: unknown) => {
        diag.error("telemetry shutdown failed", error);
      });
      return stopping;
    },
  };
}

// `rlf stack`: the local stack — every bundled tool server over Streamable HTTP on its fixed port, and
// the judge (`rlf judge`: HTTP 127.0.0.1:7005, gRPC 127.0.0.1:50053; its model backend from
// JUDGE_BASE_URL / JUDGE_MODEL / JUDGE_API_KEY, else rule graders only), each supervised (restarted
// when it dies), plus the gateway and the web console (`rlf console` on 127.0.0.1:8090: the gateway's
// tools, the run directories under ./runs, the rollout service of `rlf rollout serve` on 8091) in this
// process.
import { type ChildProcess, spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildConsoleApp, CONSOLE_PORT, DEFAULT_GATEWAY_ADMIN } from "@rlfactory/console";
import { loadConfigFile, startGateway } from "@rlfactory/gateway";
import { JUDGE_GRPC_PORT, JUDGE_HTTP_PORT } from "@rlfactory/judge/default-ports";
import { stopOnSignals, UsageError } from "@rlfactory/kit/command-line";
import { startTelemetry } from "@rlfactory/telemetry";
import { BUNDLED_TOOL_SERVER_NAMES, toolServers } from "@rlfactory/tools/tool-servers";
import {
  checkPortsFree,
  DEFAULT_READY_TIMEOUT_S,
  readinessBudgetMs,
  StackStartError,
  waitAllHealthy,
} from "./stack-startup.ts";

/** Fixed loopback ports of the bundled tool servers (a user-facing contract), from their registry. */
export const TOOL_PORTS: Record<string, number> = Object.fromEntries(
  Object.entries(toolServers).map(([name, server]) => [name, server.port]),
);

/** `rlf rollout serve`'s default --http-port: the console shows its runs live. */
const ROLLOUT_HTTP_PORT = 8091;

const here = dirname(fileURLToPath(import.meta.url));
const MAIN = resolve(here, "main.ts");
const DEFAULT_CONFIG = resolve(here, "../../../deploy/local/gateway.yaml");

export async function runStackCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { config: { type: "string" }, "ready-timeout": { type: "string" } },
    strict: true,
  });
  const readyTimeoutS = Number(values["ready-timeout"] ?? DEFAULT_READY_TIMEOUT_S);
  if (!Number.isFinite(readyTimeoutS) || readyTimeoutS <= 0)
    throw new UsageError(`rlf stack: --ready-timeout must be a positive number of seconds`);
  const baseMs = readyTimeoutS * 1000;
  const config = loadConfigFile(values.config ?? DEFAULT_CONFIG);
  const planned = [
    ...BUNDLED_TOOL_SERVER_NAMES.map((name) => ({
      name: `tool server ${name}`,
      port: toolServers[name].port,
    })),
    { name: "judge", port: JUDGE_HTTP_PORT },
  ];
  // A fixed port another process holds would have its server restarted forever: say so and stop now.
  await checkPortsFree([
    ...planned,
    { name: "judge (gRPC)", port: JUDGE_GRPC_PORT },
    { name: "console", port: CONSOLE_PORT },
    ...(config.grpc.port > 0 ? [{ name: "gateway (gRPC)", port: config.grpc.port }] : []),
    ...(config.admin.enabled && config.admin.port > 0
      ? [{ name: "gateway (admin)", port: config.admin.port }]
      : []),
  ]);
  const write = (line: string) => process.stderr.write(`${line}\n`);
  write(
    `rlf stack: starting ${planned.map((p) => `${p.name} (127.0.0.1:${p.port})`).join(", ")}, then the gateway` +
      ` (waiting up to ${Math.round(readinessBudgetMs(baseMs) / 1000)} s at this load; --ready-timeout to change)`,
  );
  const telemetry = await startTelemetry({ serviceName: "rlf-gateway" });
  const supervisors = BUNDLED_TOOL_SERVER_NAMES.map((name) => {
    const { port, stackArgs = [] } = toolServers[name];
    return supervise(`tool server ${name}`, ["tool", name, ...stackArgs, "--http", String(port)], port);
  });
  // (each server runs with its defaults: search serves the bundled sample corpus, sql the sample databases)
  const judge = supervise(
    "judge",
    ["judge", "--http-port", String(JUDGE_HTTP_PORT), "--grpc-port", String(JUDGE_GRPC_PORT)],
    JUDGE_HTTP_PORT,
  );
  const children = [...supervisors, judge];
  let gateway: Awaited<ReturnType<typeof startGateway>> | undefined;
  let webConsole: ReturnType<typeof buildConsoleApp> | undefined;
  try {
    await waitAllHealthy(children, baseMs, write);
    gateway = await startGateway(config);
    await gateway.waitReady(readinessBudgetMs(baseMs));
    // The console reads the gateway's admin API, ./runs and `rlf rollout serve`'s default HTTP port.
    try {
      webConsole = buildConsoleApp({
        gatewayAdmin: gateway.adminUrl ?? DEFAULT_GATEWAY_ADMIN,
        runsDir: resolve("runs"),
        rollout: `http://127.0.0.1:${ROLLOUT_HTTP_PORT}`,
      });
      await webConsole.listen({ host: "127.0.0.1", port: CONSOLE_PORT });
    } catch (err) {
      throw new StackStartError(
        "NOT_READY",
        "console",
        `the console did not start: ${(err as Error).message}`,
      );
    }
  } catch (err) {
    // Never half-started: stop every child (and the gateway), then fail naming the server and the reason.
    await webConsole?.close();
    await gateway?.close();
    await Promise.all(children.map((s) => s.stop()));
    await telemetry.shutdown();
    if (err instanceof StackStartError) throw err;
    throw new StackStartError(
      "NOT_READY",
      "gateway",
      `the gateway did not get ready: ${(err as Error).message}`,
    );
  }
  const started = gateway;
  const consoleApp = webConsole;
  const lines = [
    `rlf stack: gateway gRPC ${started.grpcAddress}, admin ${started.adminUrl}; tools: ${started.catalog
      .list()
      .map((e) => e.name)
      .join(
        ", ",
      )}; judge http://127.0.0.1:${JUDGE_HTTP_PORT}/v1/judge, gRPC 127.0.0.1:${JUDGE_GRPC_PORT}; console http://127.0.0.1:${CONSOLE_PORT}`,
  ];
  // Tools a server lists but cannot run here (the code tools without bubblewrap): one line per reason.
  const unavailable = new Map<string, string[]>();
  for (const { name, unavailable: reason } of started.catalog.list())
    if (reason !== undefined) unavailable.set(reason, [...(unavailable.get(reason) ?? []), name]);
  for (const [reason, names] of unavailable)
    lines.push(`rlf stack: ${names.join(", ")} unavailable: ${reason}`);
  process.stderr.write(`${lines.join("\n")}\n`); // one write: a reader sees the stack's summary whole
  stopOnSignals(async () => {
    await consoleApp.close();
    await started.close();
    await Promise.all(children.map((s) => s.stop()));
    await telemetry.shutdown();
  });
  return -1;
}

interface Supervisor {
  name: string;
  port: number;
  /** Whether GET /healthz on its HTTP port answers 2xx now. */
  isHealthy(): Promise<boolean>;
  restarts(): number;
  stop(): Promise<void>;
}

/** Runs `rlf ARGS` as a child serving HTTP on `port`, restarting it with backoff if it exits unexpectedly. */
function supervise(name: string, args: string[], port: number): Supervisor {
  let child: ChildProcess | undefined;
  let stopping = false;
  let restarts = 0;
  const start = () => {
    if (stopping) return; // a restart that was pending when the stack stopped
    child = spawn(process.execPath, [MAIN, ...args], { stdio: ["ignore", "inherit", "inherit"] });
    child.on("exit", (code, signal) => {
      if (stopping) return;
      const delay = Math.min(10_000, 250 * 2 ** restarts++);
      process.stderr.write(`rlf stack: ${name} exited (${signal ?? code}); restarting in ${delay} ms\n`);
      setTimeout(start, delay).unref();
    });
  };
  start();
  return {
    name,
    port,
    isHealthy: () =>
      fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(5_000) }).then(
        (r) => r.ok,
        () => false,
      ),
    restarts: () => restarts,
    async stop() {
      stopping = true;
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        const kill = setTimeout(() => c.kill("SIGKILL"), 5_000);
        c.once("exit", () => {
          clearTimeout(kill);
          resolve();
        });
        c.kill("SIGTERM");
      });
    },
  };
}

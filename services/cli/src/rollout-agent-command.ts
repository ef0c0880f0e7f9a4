// `rlf rollout agent --config FILE --agent CMD --out DIR`: the config's dataset through the user's own
// agent program instead of the built-in loop (docs/agents.md). Each trajectory is one run of CMD with
// an OpenAI base URL (the capture endpoint) and the gateway's MCP URL in its environment; rewards,
// GRPO groups, episodes and the output are `rlf rollout`'s (rollout-command.ts).
import { parseArgs } from "node:util";
import { positiveIntArg, UsageError } from "@rlfactory/kit/command-line";
import { createAgentRunner, createRolloutEngine, loadRolloutConfig, loadTasks } from "@rlfactory/rollout";
import { startTelemetry } from "@rlfactory/telemetry";
import { rollOutAndWrite } from "./rollout-command.ts";

/** The gateway's `/mcp` when --gateway-mcp is not given (its default admin port). */
export const DEFAULT_GATEWAY_MCP = "http://127.0.0.1:8080/mcp";
/** Each agent run's budget when --deadline-ms is not given. */
export const DEFAULT_AGENT_DEADLINE_MS = 600_000;

export async function runRolloutAgentCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: "string", short: "c" },
      agent: { type: "string" },
      out: { type: "string", short: "o" },
      limit: { type: "string" },
      "group-size": { type: "string" },
      concurrency: { type: "string" },
      "deadline-ms": { type: "string" },
      "gateway-mcp": { type: "string" },
      "no-progress": { type: "boolean" },
    },
    strict: true,
  });
  if (!values.config) throw new UsageError("rlf rollout agent needs --config FILE");
  if (!values.agent?.trim()) throw new UsageError('rlf rollout agent needs --agent "COMMAND LINE"');
  const mcpUrl = values["gateway-mcp"] ?? DEFAULT_GATEWAY_MCP;
  try {
    new URL(mcpUrl);
  } catch {
    throw new UsageError(`--gateway-mcp ${mcpUrl}: not a URL (e.g. ${DEFAULT_GATEWAY_MCP})`);
  }
  const loaded = await loadRolloutConfig(values.config, values.out === undefined ? {} : { out: values.out });
  const concurrency = positiveIntArg(values.concurrency, "--concurrency");
  const config =
    concurrency === undefined
      ? loaded
      : { ...loaded, rollout: { ...loaded.rollout, max_concurrency: concurrency } };
  const outDir = config.output.dir;
  if (outDir === undefined)
    throw new UsageError("rlf rollout agent needs --out DIR (or output.dir in the config)");
  if (config.dataset === undefined)
    throw new UsageError(`${values.config} has no dataset: nothing to roll out`);
  const limit = positiveIntArg(values.limit, "--limit");
  const groupSize = positiveIntArg(values["group-size"], "--group-size") ?? config.rollout.group_size;
  const deadlineMs = positiveIntArg(values["deadline-ms"], "--deadline-ms") ?? DEFAULT_AGENT_DEADLINE_MS;
  const tasks = await loadTasks(limit === undefined ? config.dataset : { ...config.dataset, limit });

  const telemetry = await startTelemetry({ serviceName: "rlf-rollout-agent" });
  const engine = await createRolloutEngine(config, {
    warn: (message) => process.stderr.write(`rlf rollout agent: warning: ${message}\n`),
    runner: (deps) =>
      createAgentRunner(deps, {
        command: values.agent!,
        deadlineMs,
        mcpUrl,
        // the key the rollout's gRPC calls use reads the gateway's call log too (GET /v1/calls)
        ...(config.gateway.api_key_env
          ? { gatewayApiKey: process.env[config.gateway.api_key_env] ?? "" }
          : {}),
      }),
  });
  const code = await rollOutAndWrite(engine, {
    config,
    tasks,
    groupSize,
    outDir,
    progress: !values["no-progress"],
    label: "rlf rollout agent",
  });
  await telemetry.shutdown();
  return code;
}

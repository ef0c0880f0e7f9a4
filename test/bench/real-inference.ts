// Benchmark and end-to-end check against a real, already running vLLM server (JSON output; never timing
// asserts in tests):
//
//   npm run bench -- real-inference --vllm URL --out FILE.json [--tokenizer-path DIR] [--contexts 32]
//       [--concurrency 8] [--max-tokens 32] [--repeats 3] [--seed 1] [--hotpotqa-tasks 8]
//       [--group-size 2] [--max-turns 3] [--hotpotqa-max-tokens 128] [--on-no-action nudge|end]
//       [--agent "CMD" [--agent-deadline-ms 600000]]
//
// URL is the base `rlf model serve` prints (`http://127.0.0.1:8000/v1`; with or without `/v1`). Without
// --tokenizer-path the tokenizer is the directory the server reports it loaded (`GET /v1/models` root), as
// `tokenizer.path: auto` does. Three parts, and a fourth with --agent:
//
//   tokenizer_parity   conversations rendered by the rollout service's tokenizer and chat template (system,
//                      user, assistant, tool messages, tool calls, tools given to the template, the Hermes
//                      tool system message of `tokenizer.tool_prompt: system_message` as the engine renders
//                      it, unicode, numbers, whitespace): our ids vs vLLM `POST /tokenize` of our text
//                      (`add_special_tokens: false`); and vLLM rendering the same messages with its own copy
//                      of the chat template (`POST /tokenize` with `messages`) vs ours
//   throughput         the same contexts, the same requests (the engine's request bodies, recorded once:
//                      prompt ids, seed, max_tokens, ...), sent directly to `/v1/completions` at concurrency
//                      C and through the rollout engine (createRolloutEngine, its vLLM client, single turn,
//                      C in flight), alternating direct, engine, direct, engine, ...: completion tokens/s
//                      of each run and engine/direct
//   hotpotqa           the README's HotpotQA rollout (examples/rollout-hotpotqa.yaml, bounded: --limit,
//                      --group-size, fewer turns and tokens) with `rlf rollout` against the server, through
//                      a recording proxy (real-inference-check.ts), with the bundled search tool behind
//                      `rlf gateway`; then every sampled turn is checked against what the server answered
//   agent              with --agent "CMD": an agent program, unchanged, run by `rlf rollout agent` on the same
//                      bounded HotpotQA config (its model calls through the capture endpoint and the same
//                      kind of recording proxy, its tool calls through the gateway's /mcp), then the same
//                      check; counts of statuses, turns checked, mismatches and prefix divergences
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  type ChatMessage,
  configuredTokenizer,
  createRolloutEngine,
  type ModelTokenizer,
  parseRolloutConfig,
  readTrajectoriesJsonl,
  type Task,
  type TokenSampler,
  type ToolCaller,
  type ToolInvoker,
  type Trajectory,
} from "@rlfactory/rollout";
import { spawnGateway } from "@rlfactory/test-support/gateway-harness";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { z } from "zod";
import { parseBenchFlags } from "./bench-flags.ts";
import { checkTrajectories, type RecordedCompletion, startRecordingProxy } from "./real-inference-check.ts";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, "../..");
const RLF = join(ROOT, "services/cli/src/main.ts");
const HOTPOTQA_CONFIG = join(ROOT, "examples/rollout-hotpotqa.yaml");

export interface RealInferenceOptions {
  /** The server's base URL (`/v1` or not). */
  vllm: string;
  /** The model's Hugging Face directory; default: the one `GET /v1/models` reports. */
  tokenizerPath?: string;
  contexts: number;
  concurrency: number;
  maxTokens: number;
  /** Pairs of (direct, engine) runs. */
  repeats: number;
  seed: number;
  hotpotqaTasks: number;
  groupSize: number;
  maxTurns: number;
  hotpotqaMaxTokens: number;
  /**
   * `rollout.on_no_action` of the HotpotQA run: `nudge` (default here) answers a turn without a tool call
   * or an answer with a nudge and samples again, so a small model that rarely calls the tool still makes
   * multi-turn contexts to check; `end` is the example's own setting.
   */
  onNoAction: "end" | "nudge";
  /** `--agent CMD`: also run this agent program with `rlf rollout agent` on the HotpotQA tasks. */
  agent?: string;
  /** Each agent run's budget (`rlf rollout agent --deadline-ms`). */
  agentDeadlineMs: number;
}

export const DEFAULT_REAL_INFERENCE = {
  contexts: 32,
  concurrency: 8,
  maxTokens: 32,
  repeats: 3,
  seed: 1,
  hotpotqaTasks: 8,
  groupSize: 2,
  maxTurns: 3,
  hotpotqaMaxTokens: 128,
  onNoAction: "nudge",
  agentDeadlineMs: 600_000,
} satisfies Omit<RealInferenceOptions, "vllm">;

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
const log = (line: string) => process.stderr.write(`real-inference: ${line}\n`);

const noTools: ToolCaller & ToolInvoker = {
  callTools: () => Promise.reject(new Error("no tools in this run")),
  call: () => Promise.reject(new Error("no tools in this run")),
};

// ---------------------------------------------------------------------------------------------------
// The server

const modelsSchema = z.looseObject({
  data: z.array(z.looseObject({ id: z.string(), root: z.string().nullish() })).min(1),
});
const tokenizeSchema = z.looseObject({ tokens: z.array(z.number().int()) });

interface Server {
  /** `http://host:port` (no `/v1`). */
  base: string;
  model: string;
  root: string | null;
  version: string | null;
}

async function postJson(url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json };
}

async function describeServer(url: string): Promise<Server> {
  const base = url.replace(/\/+$/, "").replace(/\/v1$/, "");
  let models: z.infer<typeof modelsSchema>;
  try {
    models = modelsSchema.parse(await (await fetch(`${base}/v1/models`)).json());
  } catch (e) {
    throw new Error(`GET ${base}/v1/models: ${(e as Error).message} (is the vLLM server running?)`);
  }
  const first = models.data[0]!;
  let version: string | null = null;
  try {
    version = z
      .looseObject({ version: z.string() })
      .parse(await (await fetch(`${base}/version`)).json()).version;
  } catch {
    // older servers have no /version
  }
  return { base, model: first.id, root: first.root ?? null, version };
}

async function serverIds(server: Server, body: Record<string, unknown>): Promise<number[]> {
  const { status, json } = await postJson(`${server.base}/tokenize`, { model: server.model, ...body });
  if (status !== 200)
    throw new Error(`POST /tokenize answered ${status}: ${JSON.stringify(json).slice(0, 300)}`);
  return tokenizeSchema.parse(json).tokens;
}

// ---------------------------------------------------------------------------------------------------
// 1. Tokenizer parity

type ChatTools = NonNullable<NonNullable<Parameters<ModelTokenizer["renderChat"]>[1]>["tools"]>;

const SEARCH_TOOL = {
  type: "function" as const,
  function: {
    name: "search__search",
    description: "Search Wikipedia passages for a query; returns the top passages.",
    parameters: {
      type: "object",
      properties: { query: { type: "string" }, topk: { type: "integer", minimum: 1 } },
      required: ["query"],
    },
  },
};
const CALCULATOR_TOOL = {
  type: "function" as const,
  function: {
    name: "calculator__calculate",
    description: "Evaluate an arithmetic expression (e.g. 12 * (3 + 4), sqrt(2)).",
    parameters: { type: "object", properties: { expression: { type: "string" } }, required: ["expression"] },
  },
};

interface ParityCase {
  name: string;
  messages: ChatMessage[];
  tools?: ChatTools;
  /** Render through the rollout engine with `tokenizer.tool_prompt: system_message` (the Hermes tool message). */
  hermes?: boolean;
}

const SYSTEM = "You are a helpful assistant.";
const toolCall = (id: string, name: string, args: Record<string, unknown>) => ({
  type: "function" as const,
  id,
  function: { name, arguments: JSON.stringify(args) },
});

export const PARITY_CASES: ParityCase[] = [
  { name: "user", messages: [{ role: "user", content: "What is the capital of France?" }] },
  {
    name: "system+user",
    messages: [
      { role: "system", content: SYSTEM },
      { role: "user", content: "Name three rivers in Europe." },
    ],
  },
  {
    name: "multi-turn",
    messages: [
      { role: "system", content: SYSTEM },
      { role: "user", content: "Who wrote Hamlet?" },
      { role: "assistant", content: "William Shakespeare wrote Hamlet." },
      { role: "user", content: "And in which year, roughly?" },
    ],
  },
  {
    name: "unicode",
    messages: [
      { role: "user", content: "Zürich, São Paulo, Kraków — 東京と北京、서울; emoji 🚀🔥 ✓ naïve café" },
    ],
  },
  {
    name: "rtl-cyrillic-greek",
    messages: [{ role: "user", content: "مرحبا بالعالم · שלום עולם · Привет, мир · Γειά σου κόσμε" }],
  },
  {
    name: "numbers",
    messages: [
      {
        role: "user",
        content: "Compute 12345 * 6789, then 3.14159e-10 + -42 and 1,000,000 / 7; pi ≈ 3141592653589793238.",
      },
    ],
  },
  {
    name: "whitespace",
    messages: [{ role: "user", content: "  leading spaces\n\n\ttab, double  space, trailing   \n\n\n" }],
  },
  {
    name: "code",
    messages: [
      {
        role: "user",
        content: "Fix this:\n```python\ndef f(x):\n    return x ** 2  # square\n\nprint(f(3))\n```",
      },
    ],
  },
  {
    name: "latex",
    messages: [{ role: "user", content: "Simplify \\frac{a^2 - b^2}{a - b} and \\sum_{i=1}^{n} i^2." }],
  },
  {
    name: "json",
    messages: [
      { role: "user", content: '{"name": "Ed Wood", "films": ["Plan 9", "Glen or Glenda"], "n": 2}' },
    ],
  },
  {
    name: "url-punctuation",
    messages: [{ role: "user", content: "See https://example.com/a?b=c&d=e#f !!! ??? ... --- *** ___" }],
  },
  {
    name: "special-token-text",
    messages: [{ role: "user", content: "Literal <|im_start|> and <|im_end|> and <|endoftext|> in text." }],
  },
  {
    name: "search-passages",
    messages: [
      { role: "system", content: "Answer with the help of the passages." },
      {
        role: "user",
        content:
          'Doc 1(Title: "Ed Wood") Edward Davis Wood Jr. (1924–1978) was an American filmmaker.\nDoc 2(Title: "Plan 9 from Outer Space") a 1957 science-fiction film.\nQuestion: who directed Plan 9?',
      },
    ],
  },
  {
    name: "search-r1-tags",
    messages: [
      {
        role: "user",
        content:
          "Answer the question. Reason in <think> </think>, search with <search> query </search>, answer in <answer> </answer>. Question: Were Scott Derrickson and Ed Wood of the same nationality?",
      },
    ],
  },
  {
    name: "assistant-tool-call-and-result",
    messages: [
      { role: "system", content: SYSTEM },
      { role: "user", content: "Who directed Plan 9 from Outer Space?" },
      {
        role: "assistant",
        content: "",
        tool_calls: [toolCall("call_1", "search__search", { query: "Plan 9" })],
      },
      {
        role: "tool",
        tool_call_id: "call_1",
        name: "search__search",
        content: 'Doc 1(Title: "Plan 9 from Outer Space") directed by Ed Wood.',
      },
      { role: "user", content: "Answer in one word." },
    ],
  },
  {
    name: "tool-json-result",
    messages: [
      { role: "user", content: "What is 12 * (3 + 4)?" },
      {
        role: "assistant",
        content: "Let me compute it.",
        tool_calls: [toolCall("c1", "calculator__calculate", { expression: "12 * (3 + 4)" })],
      },
      { role: "tool", tool_call_id: "c1", name: "calculator__calculate", content: '{"result": 84}' },
    ],
  },
  {
    name: "answer-then-follow-up",
    messages: [
      { role: "user", content: "Capital of Japan?" },
      { role: "assistant", content: "<answer>Tokyo</answer>" },
      { role: "user", content: "And its population (2020)?" },
    ],
  },
  {
    name: "empty-system",
    messages: [
      { role: "system", content: "" },
      { role: "user", content: "Hi." },
    ],
  },
  {
    name: "tools-given-to-template",
    messages: [{ role: "user", content: "Search for the director of Ed Wood (1994)." }],
    tools: [SEARCH_TOOL],
  },
  {
    name: "two-tools-given-to-template",
    messages: [
      { role: "system", content: SYSTEM },
      { role: "user", content: "What is sqrt(2) times the year Ed Wood was born?" },
    ],
    tools: [SEARCH_TOOL, CALCULATOR_TOOL],
  },
  {
    name: "hermes-tool-message-new-system",
    messages: [{ role: "user", content: "Who directed Ed Wood (1994)?" }],
    tools: [SEARCH_TOOL],
    hermes: true,
  },
  {
    name: "hermes-tool-message-appended-to-system",
    messages: [
      { role: "system", content: "Answer in <answer></answer>." },
      { role: "user", content: "Were Scott Derrickson and Ed Wood of the same nationality?" },
    ],
    tools: [SEARCH_TOOL],
    hermes: true,
  },
  {
    name: "hermes-tool-message-two-tools",
    messages: [{ role: "user", content: "Compute 2^10 and look up who invented the binary system." }],
    tools: [SEARCH_TOOL, CALCULATOR_TOOL],
    hermes: true,
  },
];

/**
 * The prompt ids the rollout engine sends for these tasks (createRolloutEngine with `tokenizer.path` and
 * `tokenizer.tool_prompt: system_message`), caught by a sampler that answers at once with one end token.
 */
async function enginePromptIds(
  tokenizerPath: string,
  tokenizer: ModelTokenizer,
  cases: ParityCase[],
): Promise<Map<string, number[]>> {
  const caught = new Map<string, number[]>();
  const end = tokenizer.eosTokenIds[0] ?? 0;
  const sampler: TokenSampler = {
    trainable: true,
    kind: "vllm",
    async generate(request) {
      caught.set(String(request.sessionId).split("#")[0]!, [...request.promptIds]);
      return {
        ids: [end],
        logprobs: [-0.1],
        finishReason: "stop",
        weightVersion: null,
        server: "capture",
        latencyMs: 0,
      };
    },
    close: async () => {},
  };
  const byTools = new Map<string, ParityCase[]>();
  for (const c of cases) {
    const k = JSON.stringify(c.tools ?? []);
    byTools.set(k, [...(byTools.get(k) ?? []), c]);
  }
  for (const group of byTools.values()) {
    const config = parseRolloutConfig({
      inference: { engine: "vllm", url: "http://127.0.0.1:1" },
      gateway: { address: "127.0.0.1:1" },
      tokenizer: { path: tokenizerPath, tool_prompt: "system_message" },
      rollout: { group_size: 1, max_turns: 1, sampling: { temperature: 1, top_p: 1, max_tokens: 8 } },
      reward: { components: [{ type: "exact_match", weight: 1 }] },
    });
    const engine = await createRolloutEngine(config, {
      sampler,
      tokenizer,
      tools: [...(group[0]!.tools ?? [])],
      toolCaller: noTools,
      toolInvoker: noTools,
      warn: () => {},
    });
    const tasks: Task[] = group.map((c) => ({
      id: c.name,
      data_source: "parity",
      prompt: c.messages,
      ground_truth: "",
      extra_info: {},
    }));
    try {
      for await (const _ of engine.rollout(tasks)) {
        // the prompts are caught by the sampler
      }
    } finally {
      await engine.close();
    }
  }
  return caught;
}

function firstDifference(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

async function tokenizerParity(server: Server, tokenizerPath: string, tokenizer: ModelTokenizer) {
  const viaEngine = await enginePromptIds(
    tokenizerPath,
    tokenizer,
    PARITY_CASES.filter((c) => c.hermes),
  );
  const cases = [];
  let firstMismatch: Record<string, unknown> | null = null;
  let firstTemplateMismatch: Record<string, unknown> | null = null;
  for (const c of PARITY_CASES) {
    const opts = { addGenerationPrompt: true, ...(c.tools === undefined ? {} : { tools: c.tools }) };
    const ours = c.hermes ? viaEngine.get(c.name)! : tokenizer.encode(tokenizer.renderChat(c.messages, opts));
    if (ours === undefined) throw new Error(`the engine sent no prompt for ${c.name}`);
    const text = c.hermes ? tokenizer.decode(ours) : tokenizer.renderChat(c.messages, opts);
    const theirs = await serverIds(server, { prompt: text, add_special_tokens: false });
    const equal = theirs.length === ours.length && theirs.every((x, i) => x === ours[i]);
    if (!equal && firstMismatch === null) {
      const at = firstDifference(ours, theirs);
      firstMismatch = {
        case: c.name,
        index: at,
        ours: ours.slice(Math.max(0, at - 3), at + 5),
        vllm: theirs.slice(Math.max(0, at - 3), at + 5),
        text: text.slice(0, 400),
      };
    }
    // vLLM's own rendering of the messages with the model's chat template (not for the Hermes cases:
    // the tool message is ours, the server would not add it)
    let template: boolean | string | null = null;
    if (!c.hermes) {
      try {
        const rendered = await serverIds(server, {
          messages: c.messages,
          ...(c.tools === undefined ? {} : { tools: c.tools }),
          add_generation_prompt: true,
          add_special_tokens: false,
        });
        template = rendered.length === ours.length && rendered.every((x, i) => x === ours[i]);
        if (!template && firstTemplateMismatch === null) {
          const at = firstDifference(ours, rendered);
          firstTemplateMismatch = {
            case: c.name,
            index: at,
            ours: tokenizer.decode(ours.slice(Math.max(0, at - 3), at + 8)),
            vllm: tokenizer.decode(rendered.slice(Math.max(0, at - 3), at + 8)),
          };
        }
      } catch (e) {
        template = `error: ${(e as Error).message.slice(0, 200)}`;
      }
    }
    cases.push({ name: c.name, ids: ours.length, equal, template_equal: template });
  }
  const templated = cases.filter((c) => typeof c.template_equal === "boolean");
  return {
    total: cases.length,
    equal: cases.filter((c) => c.equal).length,
    first_mismatch: firstMismatch,
    template: {
      compared: templated.length,
      equal: templated.filter((c) => c.template_equal === true).length,
      errors: cases.filter((c) => typeof c.template_equal === "string").length,
      first_mismatch: firstTemplateMismatch,
    },
    cases,
  };
}

// ---------------------------------------------------------------------------------------------------
// 2. Throughput

const SUBJECTS = [
  "a lighthouse keeper",
  "the history of paper",
  "a robot learning to paint",
  "the water cycle",
  "a city under the sea",
  "how bridges carry weight",
  "a chess tournament",
  "the first winter on Mars",
  "bread baking",
  "a lost dog finding home",
  "volcanoes",
  "the invention of the telescope",
  "a night train across Europe",
  "honey bees",
  "a library that never closes",
  "ocean tides",
];

function throughputTasks(n: number): Task[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `ctx-${String(i).padStart(3, "0")}`,
    data_source: "bench",
    prompt: [
      { role: "system" as const, content: SYSTEM },
      {
        role: "user" as const,
        content: `Write a long, detailed story about ${SUBJECTS[i % SUBJECTS.length]} (number ${i + 1}).`,
      },
    ],
    ground_truth: "",
    extra_info: {},
  }));
}

interface ThroughputRun {
  kind: "direct" | "engine";
  wall_s: number;
  requests: number;
  completion_tokens: number;
  tokens_per_s: number;
  errors: number;
  /** Completions whose ids equal the warm-up engine run's for the same context (same request body). */
  same_as_warm_up?: number;
}

/** Prompt ids → completion ids of one run. */
type Completions = Map<string, string>;
const idsKey = (ids: readonly number[]) => ids.join(",");

function sameCount(a: Completions, b: Completions): number {
  let n = 0;
  for (const [k, v] of a) if (b.get(k) === v) n += 1;
  return n;
}

async function engineFor(server: Server, tokenizerPath: string, o: RealInferenceOptions, url = server.base) {
  const config = parseRolloutConfig({
    inference: { engine: "vllm", url, model: server.model },
    gateway: { address: "127.0.0.1:1" },
    tokenizer: { path: tokenizerPath },
    rollout: {
      group_size: 1,
      max_turns: 1,
      max_concurrency: o.concurrency,
      sampling: { temperature: 1, top_p: 1, max_tokens: o.maxTokens },
    },
    reward: { components: [{ type: "exact_match", weight: 1 }] },
    seed: o.seed,
  });
  // no sampler or tokenizer given: the engine builds its vLLM client and checks the tokenizer, as `rlf rollout` does
  return createRolloutEngine(config, { tools: [], toolCaller: noTools, toolInvoker: noTools, warn: log });
}

async function engineRun(
  server: Server,
  tokenizerPath: string,
  o: RealInferenceOptions,
  tasks: Task[],
  url?: string,
): Promise<{ run: ThroughputRun; completions: Completions }> {
  const engine = await engineFor(server, tokenizerPath, o, url);
  const trajectories: Trajectory[] = [];
  const started = performance.now();
  let wall: number;
  try {
    for await (const group of engine.rollout(tasks)) trajectories.push(...group.trajectories);
    // to the last trajectory, as the direct run's wall is to the last answer
    wall = (performance.now() - started) / 1000;
  } finally {
    await engine.close();
  }
  const tokens = trajectories.reduce((s, t) => s + t.loss_mask.filter((m) => m === 1).length, 0);
  return {
    completions: new Map(trajectories.map((t) => [idsKey(t.prompt_ids), idsKey(t.response_ids)])),
    run: {
      kind: "engine",
      wall_s: round(wall, 3),
      requests: trajectories.length,
      completion_tokens: tokens,
      tokens_per_s: round(tokens / wall, 1),
      errors: trajectories.filter((t) => t.status === "failed" || t.status === "aborted").length,
    },
  };
}

const completionSchema = z.looseObject({
  choices: z.array(z.looseObject({ token_ids: z.array(z.number()).nullish() })).min(1),
});

/** The recorded request bodies, POSTed to `/v1/completions`, `concurrency` at a time. */
async function directRun(
  server: Server,
  bodies: { prompt: number[] }[],
  concurrency: number,
): Promise<{ run: ThroughputRun; completions: Completions }> {
  const completions: Completions = new Map();
  let next = 0;
  let tokens = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, bodies.length) }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        try {
          const { status, json } = await postJson(`${server.base}/v1/completions`, body);
          const parsed = completionSchema.safeParse(json);
          if (status !== 200 || !parsed.success) errors += 1;
          else {
            const ids = parsed.data.choices[0]!.token_ids ?? [];
            tokens += ids.length;
            completions.set(idsKey(body!.prompt), idsKey(ids));
          }
        } catch {
          errors += 1;
        }
      }
    }),
  );
  const wall = (performance.now() - started) / 1000;
  return {
    completions,
    run: {
      kind: "direct",
      wall_s: round(wall, 3),
      requests: bodies.length,
      completion_tokens: tokens,
      tokens_per_s: round(tokens / wall, 1),
      errors,
    },
  };
}

async function throughput(server: Server, tokenizerPath: string, o: RealInferenceOptions) {
  const tasks = throughputTasks(o.contexts);
  // Warm-up, and the engine's exact requests: one engine run through the recording proxy.
  const proxy = await startRecordingProxy(server.base);
  let recorded: RecordedCompletion[];
  let warm: ThroughputRun;
  let warmCompletions: Completions;
  try {
    const r = await engineRun(server, tokenizerPath, o, tasks, proxy.url);
    warm = r.run;
    warmCompletions = r.completions;
    recorded = [...proxy.completions];
  } finally {
    await proxy.close();
  }
  if (recorded.length !== tasks.length)
    throw new Error(`the warm-up engine run sent ${recorded.length} requests for ${tasks.length} contexts`);
  const bodies = recorded.map((r) => r.body as { prompt: number[] });
  const runs: ThroughputRun[] = [];
  for (let i = 0; i < o.repeats; i++) {
    for (const kind of ["direct", "engine"] as const) {
      const { run, completions } =
        kind === "direct"
          ? await directRun(server, bodies, o.concurrency)
          : await engineRun(server, tokenizerPath, o, tasks);
      run.same_as_warm_up = sameCount(completions, warmCompletions);
      log(`${kind} ${JSON.stringify(run)}`);
      runs.push(run);
    }
  }
  const total = (kind: ThroughputRun["kind"]) => {
    const of = runs.filter((r) => r.kind === kind);
    const tokens = of.reduce((s, r) => s + r.completion_tokens, 0);
    const wall = of.reduce((s, r) => s + r.wall_s, 0);
    return { completion_tokens: tokens, wall_s: round(wall, 3), tokens_per_s: round(tokens / wall, 1) };
  };
  const direct = total("direct");
  const engine = total("engine");
  const pairs = Array.from({ length: o.repeats }, (_, i) =>
    round(runs[2 * i + 1]!.tokens_per_s / runs[2 * i]!.tokens_per_s, 3),
  );
  const sample = bodies[0] as unknown as Record<string, unknown>;
  const { prompt: _prompt, ...sampling } = sample;
  return {
    contexts: o.contexts,
    concurrency: o.concurrency,
    max_tokens: o.maxTokens,
    request: {
      ...sampling,
      seed: "per context: seed + 1000 × context index (the engine's per-trajectory seeds)",
    },
    fixed_length:
      "no: the engine's vLLM client sends no ignore_eos; both send the same bodies (prompt ids, seed, max_tokens), so they generate the same tokens unless vLLM's batching changes a sample (same_as_warm_up counts a run's completions identical to the warm-up's)",
    prompt_tokens: recorded.reduce((s, r) => s + (r.prompt?.length ?? 0), 0),
    warm_up: warm,
    runs,
    direct,
    engine,
    ratio_engine_vs_direct: round(engine.tokens_per_s / direct.tokens_per_s, 3),
    ratio_per_pair: pairs,
    target: {
      min: 0.95,
      met: engine.tokens_per_s / direct.tokens_per_s >= 0.95,
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// 3. The README's HotpotQA rollout

function spawnUntil(args: string[], ready: (line: string) => string | undefined, children: ChildProcess[]) {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
  children.push(child);
  let stderr = "";
  return new Promise<string>((resolvePromise, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${args[1]} did not start in 120 s:\n${stderr}`)),
      120_000,
    );
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(" ")} exited (${code}) before it was ready:\n${stderr}`));
    });
    createInterface({ input: child.stderr! }).on("line", (line) => {
      if (stderr.length < 20_000) stderr += `${line}\n`;
      const found = ready(line);
      if (found !== undefined) {
        clearTimeout(timer);
        resolvePromise(found);
      }
    });
  });
}

const ListeningLog = z.looseObject({ msg: z.literal("listening"), url: z.string() });

/** The search tool with its bundled HotpotQA sample corpus, behind `rlf gateway` (as `npm start` runs them). */
async function startSearchGateway(children: ChildProcess[]) {
  const searchUrl = await spawnUntil(
    [RLF, "tool", "search", "--http", "0"],
    (line) => {
      try {
        const rec = ListeningLog.safeParse(JSON.parse(line));
        return rec.success ? rec.data.url : undefined;
      } catch {
        return undefined;
      }
    },
    children,
  );
  const gateway = await spawnGateway({
    servers: { search: { url: searchUrl, tools: { search: { cache: true, idempotent: true } } } },
  });
  children.push(gateway.process);
  gateway.client.close();
  return gateway;
}

/** examples/rollout-hotpotqa.yaml, bounded, against the proxy and the gateway. */
function hotpotqaConfig(
  proxyUrl: string,
  model: string,
  gatewayAddress: string,
  tokenizerPath: string,
  o: RealInferenceOptions,
) {
  const example = parseYaml(readFileSync(HOTPOTQA_CONFIG, "utf8")) as Record<string, Record<string, unknown>>;
  const rollout = example.rollout as Record<string, unknown>;
  return {
    ...example,
    inference: { ...example.inference, urls: [proxyUrl], model },
    gateway: { ...example.gateway, address: gatewayAddress },
    // SmolLM2's template renders no tools: describe them in a Hermes system message
    tokenizer: { path: tokenizerPath, tool_prompt: "system_message" },
    dataset: {
      ...example.dataset,
      path: resolve(dirname(HOTPOTQA_CONFIG), String(example.dataset!.path)),
    },
    rollout: {
      ...rollout,
      max_turns: o.maxTurns,
      max_concurrency: o.concurrency,
      on_no_action: o.onNoAction,
      sampling: { ...(rollout.sampling as object), max_tokens: o.hotpotqaMaxTokens },
    },
  };
}

async function hotpotqa(server: Server, tokenizerPath: string, o: RealInferenceOptions) {
  const children: ChildProcess[] = [];
  const proxy = await startRecordingProxy(server.base);
  const dir = mkdtempSync(join(tmpdir(), "rlf-real-inference-"));
  try {
    const gateway = await startSearchGateway(children);
    const config = hotpotqaConfig(proxy.url, server.model, gateway.grpcAddress, tokenizerPath, o);
    const configFile = join(dir, "rollout-hotpotqa.yaml");
    writeFileSync(configFile, stringifyYaml(config));
    const out = join(dir, "out");
    const args = [
      RLF,
      "rollout",
      "--config",
      configFile,
      "--out",
      out,
      "--limit",
      String(o.hotpotqaTasks),
      "--group-size",
      String(o.groupSize),
      "--no-progress",
    ];
    log(`rlf rollout ${args.slice(2).join(" ")}`);
    const started = performance.now();
    const { stdout } = await promisify(execFile)(process.execPath, args, {
      cwd: ROOT,
      timeout: 900_000,
      maxBuffer: 16 * 2 ** 20,
    });
    const wall = (performance.now() - started) / 1000;
    const trajectories = await readTrajectoriesJsonl(join(out, "trajectories.jsonl"));
    const check = checkTrajectories(trajectories, proxy.completions);
    const statuses: Record<string, number> = {};
    for (const t of trajectories) statuses[t.status] = (statuses[t.status] ?? 0) + 1;
    const calls = trajectories.flatMap((t) => t.tool_calls);
    const gatewayCalls = calls.filter((c) => !c.error_code?.startsWith("MALFORMED_"));
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as Record<string, unknown>;
    return {
      config: {
        from: "examples/rollout-hotpotqa.yaml",
        changed: {
          "inference.urls": "[the recording proxy → the vLLM server]",
          "gateway.address": "rlf gateway over rlf tool search (bundled sample corpus)",
          tokenizer: { path: tokenizerPath, tool_prompt: "system_message" },
          "rollout.max_turns": o.maxTurns,
          "rollout.max_concurrency": o.concurrency,
          "rollout.on_no_action": o.onNoAction,
          "rollout.sampling.max_tokens": o.hotpotqaMaxTokens,
        },
        command: `rlf rollout --config DERIVED.yaml --out DIR --limit ${o.hotpotqaTasks} --group-size ${o.groupSize} --no-progress`,
      },
      wall_s: round(wall, 1),
      trajectories: trajectories.length,
      statuses,
      sampled_turns: check.turns_checked,
      turns_checked: check.turns_checked,
      turns_matched: check.turns_matched,
      mismatches: check.mismatches.length,
      mismatch_examples: check.mismatches.slice(0, 5),
      requests_recorded: proxy.completions.length,
      requests_unused: check.requests_unused,
      requests_forwarded: proxy.forwarded,
      // tool_calls records both the calls sent to the gateway and the turns the engine could not act on
      // (a malformed call, or a nudge: MALFORMED_UNKNOWN_ACTION)
      tool_call_records: calls.length,
      gateway_calls: gatewayCalls.length,
      gateway_calls_ok: gatewayCalls.filter((c) => !c.is_error && c.error_code === null).length,
      nudges: calls.filter((c) => c.error_code === "MALFORMED_UNKNOWN_ACTION").length,
      tool_call_records_by_code: Object.fromEntries(
        [...new Set(calls.map((c) => c.error_code ?? "OK"))].map((k) => [
          k,
          calls.filter((c) => (c.error_code ?? "OK") === k).length,
        ]),
      ),
      reward_mean: (summary.reward as { mean?: number } | undefined)?.mean ?? null,
      summary_stdout: stdout.trim().split("\n").slice(-12),
    };
  } finally {
    await proxy.close();
    for (const c of children.reverse()) c.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------
// 4. An unmodified agent program (--agent CMD) on the same HotpotQA tasks

const CaptureMetadata = z.looseObject({
  capture: z
    .looseObject({
      requests: z
        .array(
          z.looseObject({
            prefix: z.string(),
            diverged_at_char: z.number().nullish(),
            diverged_at_token: z.number().nullish(),
          }),
        )
        .default([]),
      segments: z.number().int().optional(),
    })
    .optional(),
  agent: z.looseObject({ exit_code: z.number().nullish() }).optional(),
});

/** Where `--agent` talks to: the server (through the proxy) and the model directory. */
export interface AgentTarget {
  /** The inference server's base URL (`/v1` or not). */
  base: string;
  model: string;
  tokenizerPath: string;
}

/**
 * `rlf rollout agent --agent CMD` with the HotpotQA part's bounded config (the search tool behind
 * `rlf gateway`, reached by the agent through RLF_MCP_URL) through a recording proxy, then the same
 * check as the built-in rollout's: every sampled turn's ids and logprobs are one answer of the server to
 * exactly the ids before it; loss_mask 1 is exactly the sampled turns.
 */
export async function agentRollout(target: AgentTarget, agent: string, o: RealInferenceOptions) {
  const children: ChildProcess[] = [];
  const proxy = await startRecordingProxy(target.base);
  const dir = mkdtempSync(join(tmpdir(), "rlf-real-inference-agent-"));
  try {
    const gateway = await startSearchGateway(children);
    const config = hotpotqaConfig(proxy.url, target.model, gateway.grpcAddress, target.tokenizerPath, o);
    const configFile = join(dir, "rollout-hotpotqa.yaml");
    writeFileSync(configFile, stringifyYaml(config));
    const out = join(dir, "out");
    const args = [
      RLF,
      "rollout",
      "agent",
      "--config",
      configFile,
      "--agent",
      agent,
      "--out",
      out,
      "--limit",
      String(o.hotpotqaTasks),
      "--group-size",
      String(o.groupSize),
      "--gateway-mcp",
      `${gateway.adminUrl}/mcp`,
      "--deadline-ms",
      String(o.agentDeadlineMs),
      "--no-progress",
    ];
    log(`rlf rollout agent ${args.slice(3).join(" ")}`);
    const started = performance.now();
    // a failed trajectory makes the command exit non-zero: the trajectories are still written and counted
    const run = await promisify(execFile)(process.execPath, args, {
      cwd: ROOT,
      timeout: 1_800_000,
      maxBuffer: 16 * 2 ** 20,
    }).catch((e: { code?: number; stdout?: string; stderr?: string }) => e);
    const wall = (performance.now() - started) / 1000;
    const trajectories = await readTrajectoriesJsonl(join(out, "trajectories.jsonl"));
    const check = checkTrajectories(trajectories, proxy.completions);
    const statuses: Record<string, number> = {};
    const reasons: Record<string, number> = {};
    const prefixes: Record<string, number> = {};
    let multiSegment = 0;
    const divergences: {
      task_id: string;
      sample_index: number;
      request: number;
      at_char: number | null;
      at_token: number | null;
    }[] = [];
    for (const t of trajectories) {
      statuses[t.status] = (statuses[t.status] ?? 0) + 1;
      const reason = (t.status_reason ?? "").split(":")[0]!.slice(0, 80);
      reasons[reason] = (reasons[reason] ?? 0) + 1;
      const meta = CaptureMetadata.safeParse(t.metadata);
      const requests = meta.success ? (meta.data.capture?.requests ?? []) : [];
      requests.forEach((r, i) => {
        prefixes[r.prefix] = (prefixes[r.prefix] ?? 0) + 1;
        if (r.prefix === "diverged")
          divergences.push({
            task_id: t.task_id,
            sample_index: t.sample_index,
            request: i,
            at_char: r.diverged_at_char ?? null,
            at_token: r.diverged_at_token ?? null,
          });
      });
      if (meta.success && (meta.data.capture?.segments ?? 1) > 1) multiSegment += 1;
    }
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as Record<string, unknown>;
    return {
      agent,
      command: `rlf rollout agent --config DERIVED.yaml --agent "${agent}" --out DIR --limit ${o.hotpotqaTasks} --group-size ${o.groupSize} --gateway-mcp GATEWAY/mcp --deadline-ms ${o.agentDeadlineMs} --no-progress`,
      config: "the hotpotqa part's (examples/rollout-hotpotqa.yaml, bounded, the same tokenizer and proxy)",
      exit_code: "code" in run ? (run.code ?? null) : 0,
      wall_s: round(wall, 1),
      trajectories: trajectories.length,
      statuses,
      status_reasons: reasons,
      sampled_turns: check.turns_checked,
      turns_checked: check.turns_checked,
      turns_matched: check.turns_matched,
      mismatches: check.mismatches.length,
      mismatch_examples: check.mismatches.slice(0, 5),
      // the capture endpoint's own record of each request: start, extends or diverged (a new segment)
      requests_by_prefix: prefixes,
      prefix_divergences: prefixes.diverged ?? 0,
      divergence_examples: divergences.slice(0, 10),
      trajectories_with_several_segments: multiSegment,
      requests_recorded: proxy.completions.length,
      requests_unused: check.requests_unused,
      requests_forwarded: proxy.forwarded,
      reward_mean: (summary.reward as { mean?: number } | undefined)?.mean ?? null,
      stderr_tail: ("stderr" in run ? String(run.stderr ?? "") : "").trim().split("\n").slice(-8),
    };
  } finally {
    await proxy.close();
    for (const c of children.reverse()) c.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------

export async function benchRealInference(out: string, o: RealInferenceOptions): Promise<void> {
  const load = loadavg();
  const server = await describeServer(o.vllm);
  const tokenizerPath = o.tokenizerPath ?? server.root;
  if (!tokenizerPath)
    throw new Error(`${server.base}/v1/models reports no model directory (root): give --tokenizer-path DIR`);
  log(`server ${server.base}, model ${server.model}, tokenizer ${tokenizerPath}`);
  const tokenizer = await configuredTokenizer(tokenizerPath);
  const started = new Date().toISOString();

  const parity = await tokenizerParity(server, tokenizerPath, tokenizer);
  log(
    `tokenizer parity ${parity.equal}/${parity.total}, template ${parity.template.equal}/${parity.template.compared}`,
  );
  const tp = await throughput(server, tokenizerPath, o);
  log(
    `throughput direct ${tp.direct.tokens_per_s} tok/s, engine ${tp.engine.tokens_per_s} tok/s, ratio ${tp.ratio_engine_vs_direct}`,
  );
  const hq = await hotpotqa(server, tokenizerPath, o);
  log(
    `hotpotqa ${hq.trajectories} trajectories, ${hq.turns_checked} turns checked, ${hq.mismatches} mismatches`,
  );
  const agent =
    o.agent === undefined
      ? undefined
      : await agentRollout({ base: server.base, model: server.model, tokenizerPath }, o.agent, o);
  if (agent)
    log(
      `agent ${agent.trajectories} trajectories ${JSON.stringify(agent.statuses)}, ${agent.turns_checked} turns checked, ${agent.mismatches} mismatches, ${agent.prefix_divergences} prefix divergences`,
    );

  const report = {
    benchmark: "real-inference",
    date: started,
    machine: {
      cpus: cpus().length,
      cpu_model: cpus()[0]?.model ?? "",
      memory_gib: round(totalmem() / 2 ** 30, 1),
      node: process.version,
      load_average_at_start: load.map((x) => round(x, 2)),
      load_average_at_end: loadavg().map((x) => round(x, 2)),
    },
    server: { url: server.base, model: server.model, root: server.root, vllm_version: server.version },
    tokenizer_path: tokenizerPath,
    tokenizer_parity: parity,
    throughput: tp,
    hotpotqa: hq,
    ...(agent === undefined ? {} : { agent }),
  };
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  log(`written to ${out}`);
}

const Flags = z.object({
  vllm: z.string({ error: "--vllm URL is required (the base URL rlf model serve prints)" }).url(),
  out: z.string().min(1).default("bench-real-inference.json"),
  "tokenizer-path": z.string().min(1).optional(),
  contexts: z.coerce.number().int().positive().default(DEFAULT_REAL_INFERENCE.contexts),
  concurrency: z.coerce.number().int().positive().default(DEFAULT_REAL_INFERENCE.concurrency),
  "max-tokens": z.coerce.number().int().positive().default(DEFAULT_REAL_INFERENCE.maxTokens),
  repeats: z.coerce.number().int().positive().default(DEFAULT_REAL_INFERENCE.repeats),
  seed: z.coerce.number().int().default(DEFAULT_REAL_INFERENCE.seed),
  "hotpotqa-tasks": z.coerce.number().int().positive().default(DEFAULT_REAL_INFERENCE.hotpotqaTasks),
  "group-size": z.coerce.number().int().positive().default(DEFAULT_REAL_INFERENCE.groupSize),
  "max-turns": z.coerce.number().int().positive().default(DEFAULT_REAL_INFERENCE.maxTurns),
  "hotpotqa-max-tokens": z.coerce.number().int().positive().default(DEFAULT_REAL_INFERENCE.hotpotqaMaxTokens),
  "on-no-action": z.enum(["end", "nudge"]).default(DEFAULT_REAL_INFERENCE.onNoAction),
  agent: z.string().trim().min(1).optional(),
  "agent-deadline-ms": z.coerce.number().int().positive().default(DEFAULT_REAL_INFERENCE.agentDeadlineMs),
});

export const REAL_INFERENCE_BENCH_USAGE = `npm run bench -- real-inference --vllm URL --out FILE.json [--tokenizer-path DIR]
    [--contexts 32] [--concurrency 8] [--max-tokens 32] [--repeats 3] [--seed 1]
    [--hotpotqa-tasks 8] [--group-size 2] [--max-turns 3] [--hotpotqa-max-tokens 128] [--on-no-action nudge|end]
    [--agent "CMD" [--agent-deadline-ms 600000]]`;

/** The command line of `npm run bench -- real-inference`; throws with the usage on a mistake. */
export function realInferenceBenchArgs(argv: string[]): { out: string; options: RealInferenceOptions } {
  const f = parseBenchFlags(argv, Flags, REAL_INFERENCE_BENCH_USAGE);
  return {
    out: f.out,
    options: {
      vllm: f.vllm,
      ...(f["tokenizer-path"] === undefined ? {} : { tokenizerPath: f["tokenizer-path"] }),
      contexts: f.contexts,
      concurrency: f.concurrency,
      maxTokens: f["max-tokens"],
      repeats: f.repeats,
      seed: f.seed,
      hotpotqaTasks: f["hotpotqa-tasks"],
      groupSize: f["group-size"],
      maxTurns: f["max-turns"],
      hotpotqaMaxTokens: f["hotpotqa-max-tokens"],
      onNoAction: f["on-no-action"],
      ...(f.agent === undefined ? {} : { agent: f.agent }),
      agentDeadlineMs: f["agent-deadline-ms"],
    },
  };
}

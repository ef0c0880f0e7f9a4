// A scripted OpenAI-compatible endpoint for `rlf env build`: a TEST FIXTURE, not a model. It reads the
// stage from the system prompt's first line (`rlf-env-build stage: NAME`) and the item from the user
// message (JSON), and answers each stage deterministically from its input alone, so the answers do not
// depend on request order or concurrency:
// - decompose: the structure named by a marker in the question (`[single]`, `[parallel]`, `[multi]`,
//   `[parallel-multi]`; default single, or with `mixStructures` one of the four picked by a hash of the
//   question), sub-answers derived from the question; the last hop of the first branch answers with the
//   question's gold answer;
// - document: hop 1 → `find_entity`, hop 2 → `get_attribute` (so parallel branches overlap), each
//   with one `query` parameter; integrate: documents of the same name merged;
// - scale: each strategy leaves a visible mark (description prefix, an optional `limit` integer, an
//   optional `fields` array, distractor tools);
// - deploy: a lookup table from each call's query to its answer; a fault marker in the question makes
//   the code faulty (`[wrong]`, `[exception]`, `[timeout]`, `[network]`, `[file]`,
//   `[nondeterministic]`); repair fixes it, unless the question also says `[stubborn]`;
// - `[garbled]`: the first decompose reply is not JSON (the retry gets JSON); `[garbled-always]`: never.
// `onAnswered(n)` runs after the n-th answer is sent (a test kills the build on a count).
import { createHash } from "node:crypto";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export const FACTORY_CHAT_MODEL = "factory-chat-fixture";

export interface FactoryChatRequest {
  stage: string;
  input: Record<string, unknown>;
  attempt: number;
  body: Record<string, unknown>;
}

export interface FactoryChatFixture {
  /** `http://127.0.0.1:PORT/v1`. */
  baseUrl: string;
  requests: FactoryChatRequest[];
  /** Requests per stage. */
  countByStage(): Record<string, number>;
  close(): Promise<void>;
}

export interface FactoryChatFixtureOptions {
  onAnswered?: (count: number) => void;
  /** A question without a structure marker gets one of the four structures by its hash (default: single_hop). */
  mixStructures?: boolean;
  /** Listen port (default 0: any free one). */
  port?: number;
  /** Listen address (default 127.0.0.1). */
  host?: string;
}

const STRUCTURES = ["single_hop", "parallel_single_hop", "multi_hop", "parallel_multi_hop"] as const;

const FAULTS = ["wrong", "exception", "timeout", "network", "file", "nondeterministic"] as const;

const hash6 = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 6);

interface Sub {
  key: string;
  question: string;
  answer: string;
}

function decompose(input: Record<string, unknown>, mixStructures = false): unknown {
  const scenario = typeof input.scenario === "string" ? input.scenario : undefined;
  const question =
    typeof input.question === "string"
      ? input.question
      : `What does the scenario "${scenario}" settle${input.question_number === undefined ? "" : ` (question ${input.question_number} of ${input.questions})`}?`;
  const answer = typeof input.answer === "string" ? input.answer : `answer-${hash6(question)}`;
  const structure = question.includes("[parallel-multi]")
    ? "parallel_multi_hop"
    : question.includes("[parallel]")
      ? "parallel_single_hop"
      : question.includes("[multi]")
        ? "multi_hop"
        : question.includes("[single]") || !mixStructures
          ? "single_hop"
          : STRUCTURES[Number.parseInt(hash6(question), 16) % STRUCTURES.length]!;
  const shape: Record<string, number[]> = {
    single_hop: [1],
    parallel_single_hop: [1, 1],
    multi_hop: [2],
    parallel_multi_hop: [2, 1],
  };
  const branches = (shape[structure] as number[]).map((hops, b) =>
    Array.from({ length: hops }, (_, h) => {
      const key = `${b + 1}.${h + 1}`;
      const last = b === 0 && h === hops - 1;
      return {
        question: `step ${key} of "${question}"`,
        answer: last ? answer : `fact-${hash6(`${question}/${key}`)}`,
      };
    }),
  );
  return { question, answer, structure, branches };
}

const QUERY = { type: "object", properties: { query: { type: "string" } }, required: ["query"] };

function documents(input: Record<string, unknown>): unknown {
  const subs = input.sub_questions as Sub[];
  return {
    documents: subs.map((s) => {
      const hop = Number(s.key.split(".")[1]);
      const name = hop === 1 ? "find_entity" : "get_attribute";
      return {
        sub: s.key,
        name,
        description:
          hop === 1 ? "Finds the entity a question is about." : "Looks up an attribute of an entity.",
        parameters: QUERY,
        arguments: { query: s.question },
      };
    }),
  };
}

function integrate(input: Record<string, unknown>): unknown {
  const docs = input.documents as {
    sub: string;
    name: string;
    description: string;
    parameters: unknown;
    arguments: unknown;
  }[];
  const tools = new Map<
    string,
    { name: string; description: string; parameters: unknown; calls: unknown[] }
  >();
  for (const d of docs) {
    const tool = tools.get(d.name) ?? {
      name: d.name,
      description: d.description,
      parameters: d.parameters,
      calls: [],
    };
    tool.calls.push({ sub: d.sub, arguments: d.arguments });
    tools.set(d.name, tool);
  }
  return { tools: [...tools.values()] };
}

const DISTRACTOR_NAMES = ["lookup_weather", "convert_units", "list_holidays", "count_words"];

function scale(input: Record<string, unknown>): unknown {
  const strategies = input.strategies as string[];
  const tools = (
    input.tools as {
      name: string;
      description: string;
      parameters: { properties: Record<string, unknown> };
      calls: unknown[];
    }[]
  ).map((t) => {
    const properties = { ...t.parameters.properties };
    if (strategies.includes("parameter_expansion")) properties.limit = { type: "integer" };
    if (strategies.includes("parameter_type_generalization"))
      properties.fields = { type: "array", items: { type: "string" } };
    return {
      ...t,
      description: strategies.includes("functional_generalization")
        ? `General: ${t.description}`
        : t.description,
      parameters: { ...t.parameters, properties },
    };
  });
  const n = Number(input.distractors ?? 0);
  const distractors = Array.from({ length: n }, (_, i) => ({
    name: DISTRACTOR_NAMES[i % DISTRACTOR_NAMES.length],
    description: "Unrelated to most questions.",
    parameters: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
    example_arguments: { topic: "anything" },
  }));
  return { tools, distractors };
}

interface DeployInput {
  tool: { name: string };
  calls: { arguments: { query?: string }; answer?: string }[];
  distractor: boolean;
}

function goodCode(input: DeployInput): string {
  const { name } = input.tool;
  if (input.distractor)
    return `import json\n\ndef ${name}(**arguments):\n    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)\n`;
  const table = Object.fromEntries(input.calls.map((c) => [c.arguments.query ?? "", c.answer ?? ""]));
  return [
    `ANSWERS = ${JSON.stringify(table)}`,
    "",
    `def ${name}(**arguments):`,
    `    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")`,
    "",
  ].join("\n");
}

function faultOf(input: DeployInput): (typeof FAULTS)[number] | undefined {
  if (input.distractor) return undefined;
  const text = input.calls.map((c) => c.arguments.query ?? "").join(" ");
  return FAULTS.find((f) => text.includes(`[${f}]`));
}

function faultyCode(input: DeployInput, fault: (typeof FAULTS)[number]): string {
  const { name } = input.tool;
  const table = Object.fromEntries(input.calls.map((c) => [c.arguments.query ?? "", c.answer ?? ""]));
  const head = `ANSWERS = ${JSON.stringify(table)}\n\ndef ${name}(**arguments):\n    answer = ANSWERS.get(arguments.get("query"), "no record")\n`;
  const bodies: Record<(typeof FAULTS)[number], string> = {
    wrong: `    return "Result: unknown"\n`,
    exception: `    raise RuntimeError("backend unavailable")\n`,
    timeout: `    while True:\n        pass\n`,
    network: `    import socket\n    try:\n        socket.create_connection(("10.1.2.3", 80), timeout=0.2)\n    except OSError:\n        pass\n    return "Result: " + answer\n`,
    file: `    try:\n        open("/etc/hostname").read()\n    except OSError:\n        pass\n    return "Result: " + answer\n`,
    nondeterministic: `    import random\n    return "Result: " + answer + " #" + str(random.random())\n`,
  };
  return head + bodies[fault];
}

function deploy(input: DeployInput): unknown {
  const fault = faultOf(input);
  return { code: fault ? faultyCode(input, fault) : goodCode(input) };
}

function repair(input: DeployInput & { code: string }): unknown {
  const text = input.calls.map((c) => c.arguments.query ?? "").join(" ");
  return { code: text.includes("[stubborn]") ? input.code : goodCode(input) };
}

function answer(
  stage: string,
  input: Record<string, unknown>,
  attempt: number,
  options: FactoryChatFixtureOptions,
): string {
  if (stage === "decompose") {
    const q = String(input.question ?? "");
    if (q.includes("[garbled-always]") || (q.includes("[garbled]") && attempt === 0))
      return "Sure! Here is the decomposition you asked for.";
  }
  const handlers: Record<string, (i: Record<string, unknown>) => unknown> = {
    decompose: (i) => decompose(i, options.mixStructures),
    document: documents,
    integrate,
    scale,
    deploy: (i) => deploy(i as unknown as DeployInput),
    repair: (i) => repair(i as unknown as DeployInput & { code: string }),
  };
  const handler = handlers[stage];
  if (!handler) throw new Error(`unknown stage ${stage}`);
  return JSON.stringify(handler(input));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startFactoryChatFixture(
  options: FactoryChatFixtureOptions = {},
): Promise<FactoryChatFixture> {
  const requests: FactoryChatRequest[] = [];
  let answered = 0;
  const server: Server = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "GET" && req.url === "/v1/models") {
      send(200, { object: "list", data: [{ id: FACTORY_CHAT_MODEL, object: "model" }] });
      return;
    }
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      send(404, { error: { message: `no route ${req.method} ${req.url}` } });
      return;
    }
    void readBody(req).then((text) => {
      try {
        const body = JSON.parse(text) as { messages: { role: string; content: string }[] };
        const system = body.messages[0]?.content ?? "";
        const stage = /^rlf-env-build stage: (\w+)/.exec(system)?.[1] ?? "";
        const input = JSON.parse(body.messages[1]?.content ?? "{}") as Record<string, unknown>;
        const attempt = body.messages.filter((m) => m.role === "assistant").length;
        requests.push({ stage, input, attempt, body: body as unknown as Record<string, unknown> });
        const content = answer(stage, input, attempt, options);
        send(200, {
          id: `chatcmpl-${requests.length}`,
          object: "chat.completion",
          model: FACTORY_CHAT_MODEL,
          choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
          usage: {
            prompt_tokens: Math.ceil(body.messages.reduce((n, m) => n + m.content.length, 0) / 4),
            completion_tokens: Math.ceil(content.length / 4),
          },
        });
        answered++;
        options.onAnswered?.(answered);
      } catch (err) {
        send(400, { error: { message: (err as Error).message } });
      }
    });
  });
  const host = options.host ?? "127.0.0.1";
  server.listen(options.port ?? 0, host);
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://${host}:${port}/v1`,
    requests,
    countByStage() {
      const out: Record<string, number> = {};
      for (const r of requests) out[r.stage] = (out[r.stage] ?? 0) + 1;
      return out;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// The agent program of `npm run bench -- agent-capture` (agent-capture.ts), in a process of its own as an
// agent program is under `rlf rollout agent`: an OpenAI chat tool loop (ask, run the search calls the
// model makes, ask again, until a reply has no call). It waits for runs over IPC — `{ url, sessions,
// concurrency, offset }`, where `{id}` in `url` becomes each session's number (the capture endpoint's
// per-trajectory base URL) — runs them with `concurrency` sessions in flight and answers with what it
// did: requests, completion tokens, its wall time and its own CPU time. It exits when its parent goes.

/** A run the bench asks for. */
export interface AgentRunRequest {
  /** The OpenAI base URL; `{id}` is replaced by the session's number. */
  url: string;
  sessions: number;
  concurrency: number;
  /** Session numbers are offset + 0 … offset + sessions − 1 (the question names its group). */
  offset: number;
}

/** What the agent answers for a run. */
export interface AgentRunResult {
  requests: number;
  completion_tokens: number;
  wall_ms: number;
  /** This process's CPU time (user + system) over the run. */
  cpu_ms: number;
}

const SEARCH_TOOL = {
  type: "function",
  function: {
    name: "search__search",
    description: "Search the web",
    parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
  },
};

const PASSAGES = [
  'Doc 1(Title: "Paris") Paris is the capital and most populous city of France.',
  'Doc 2(Title: "Lyon") Lyon is the third-largest city of France, at the confluence of the Rhône and the Saône.',
  'Doc 3(Title: "Marseille") Marseille is a port city in southern France on the Mediterranean coast.',
].join("\n");

interface ChatReply {
  choices: {
    message: { content: string | null; tool_calls?: { id: string; function: { arguments: string } }[] };
  }[];
  usage: { completion_tokens: number };
}

/** One agent session: ask, run the search calls it makes, ask again, until a reply has no call. */
async function session(baseUrl: string, i: number): Promise<{ requests: number; tokens: number }> {
  // sessions 4k … 4k + 3 are a group: the same question
  const messages: unknown[] = [
    { role: "user", content: `Question: which city is the capital of France ${Math.floor(i / 4)}` },
  ];
  let requests = 0;
  let tokens = 0;
  for (let turn = 0; turn < 4; turn++) {
    const res = await fetch(`${baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages, tools: [SEARCH_TOOL], temperature: 0, max_tokens: 256 }),
    });
    if (!res.ok) throw new Error(`${baseUrl}: HTTP ${res.status} ${await res.text()}`);
    const reply = (await res.json()) as ChatReply;
    requests += 1;
    tokens += reply.usage.completion_tokens;
    const message = reply.choices[0]!.message;
    messages.push({
      role: "assistant",
      content: message.content ?? "",
      ...(message.tool_calls?.length && { tool_calls: message.tool_calls }),
    });
    if (!message.tool_calls?.length) break;
    for (const call of message.tool_calls)
      messages.push({ role: "tool", tool_call_id: call.id, content: PASSAGES });
  }
  return { requests, tokens };
}

async function runSessions(run: AgentRunRequest): Promise<AgentRunResult> {
  let next = 0;
  let requests = 0;
  let tokens = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: run.concurrency }, async () => {
      while (next < run.sessions) {
        const i = run.offset + next++;
        const r = await session(run.url.replace("{id}", String(i)), i);
        requests += r.requests;
        tokens += r.tokens;
      }
    }),
  );
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { requests, completion_tokens: tokens, wall_ms: wallMs, cpu_ms: (cpu.user + cpu.system) / 1000 };
}

if (process.send !== undefined) {
  process.on("disconnect", () => process.exit(0));
  process.on("message", (run: AgentRunRequest) => {
    runSessions(run).then(
      (result) => process.send!({ ok: true, result }),
      (e: unknown) => process.send!({ ok: false, error: e instanceof Error ? e.message : String(e) }),
    );
  });
}

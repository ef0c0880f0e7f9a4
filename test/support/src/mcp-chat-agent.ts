// An agent written the plain way, for `rlf rollout agent` tests: an OpenAI chat-completions loop (fetch)
// whose tools are the MCP server at RLF_MCP_URL (the MCP TypeScript SDK's client). It knows nothing of
// rlfactory beyond the environment docs/agents.md lists: the prompt on stdin, the model's tool calls
// run over MCP and their results sent back as `role: "tool"` messages with the result's text (a failed
// call's too: the chat format has no error flag), the last reply's text printed.
//
//   node test/support/src/mcp-chat-agent.ts <<< 'call testbed__echo: {"value": 1}'
//
// AGENT_OWN_CALL='NAME {JSON}': before asking the model, the agent calls that tool itself, as frameworks
// do for their own purposes (a health check, a retrieval step); the model never sees it.
import { readFileSync } from "node:fs";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

interface ChatMessage {
  role: string;
  content: string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

const prompt = readFileSync(0, "utf8").trim();
const mcp = new Client({ name: "mcp-chat-agent", version: "0.0.0" });
await mcp.connect(new StreamableHTTPClientTransport(new URL(process.env.RLF_MCP_URL!)));
const { tools } = await mcp.listTools();

const own = process.env.AGENT_OWN_CALL?.trim();
if (own) {
  const space = own.indexOf(" ");
  await mcp.callTool({ name: own.slice(0, space), arguments: JSON.parse(own.slice(space + 1)) });
}

const messages: ChatMessage[] = [{ role: "user", content: prompt }];
let answer = "";
for (let turn = 0; turn < 6; turn++) {
  const res = await fetch(`${process.env.OPENAI_BASE_URL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${process.env.OPENAI_API_KEY}` },
    body: JSON.stringify({
      model: process.env.RLF_MODEL,
      messages,
      tools: tools.map((t) => ({
        type: "function",
        function: { name: t.name, description: t.description ?? "", parameters: t.inputSchema },
      })),
    }),
  });
  if (!res.ok) throw new Error(`chat completions: HTTP ${res.status}: ${await res.text()}`);
  const reply = ((await res.json()) as { choices: { message: ChatMessage }[] }).choices[0]!.message;
  messages.push(reply);
  if (!reply.tool_calls?.length) {
    answer = reply.content ?? "";
    break;
  }
  for (const call of reply.tool_calls) {
    const result = await mcp.callTool({
      name: call.function.name,
      arguments: JSON.parse(call.function.arguments) as Record<string, unknown>,
    });
    const text = (result.content as { type: string; text?: string }[])
      .filter((c) => c.type === "text")
      .map((c) => c.text)
      .join("\n");
    messages.push({ role: "tool", tool_call_id: call.id, content: text });
  }
}
await mcp.close();
console.log(answer);

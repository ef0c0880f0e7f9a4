// Chat templates that never render `tools` (SmolLM2's, many base-model ones): the model would never be
// told which tools exist. `templateRendersTools` finds out by rendering one conversation with and
// without a tool; `withToolSystemMessage` makes such a tokenizer put the tools into the prompt itself,
// as a Hermes-style system message (the `<tools>` block and `<tool_call>` instructions Qwen2.5/Qwen3
// and NousResearch Hermes templates write, so the `hermes` tool-call format parses the replies).
import type { ChatMessage, ChatTool } from "@rlfactory/contracts";
import type { ModelTokenizer } from "./model-tokenizer.ts";

const PROBE_TOOL: ChatTool = {
  type: "function",
  function: {
    name: "rlf_template_probe",
    description: "Probe tool: does the chat template render tools?",
    parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  },
};

/**
 * Whether the tokenizer's chat template renders a `tools` list: a one-message conversation rendered
 * with a tool must differ from the same one rendered without.
 */
export function templateRendersTools(tokenizer: ModelTokenizer): boolean {
  const messages: ChatMessage[] = [{ role: "user", content: "What is 2 + 2?" }];
  const without = tokenizer.renderChat(messages, { addGenerationPrompt: true });
  const withTools = tokenizer.renderChat(messages, { addGenerationPrompt: true, tools: [PROBE_TOOL] });
  return without !== withTools;
}

/** The Hermes-style tool description: function signatures in `<tools>`, calls asked for in `<tool_call>`. */
export function hermesToolSystemPrompt(tools: readonly ChatTool[]): string {
  return [
    "# Tools",
    "",
    "You may call one or more functions to assist with the user query.",
    "",
    "You are provided with function signatures within <tools></tools> XML tags:",
    "<tools>",
    ...tools.map((t) => JSON.stringify(t)),
    "</tools>",
    "",
    "For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:",
    "<tool_call>",
    '{"name": <function-name>, "arguments": <args-json-object>}',
    "</tool_call>",
  ].join("\n");
}

/**
 * The conversation with the tool description in its system message: appended to the first message
 * when that is a system message (as Qwen's templates do), else a new system message first.
 */
export function withToolMessage(messages: readonly ChatMessage[], tools: readonly ChatTool[]): ChatMessage[] {
  const block = hermesToolSystemPrompt(tools);
  const [first, ...rest] = messages;
  if (first?.role === "system") return [{ ...first, content: `${first.content}\n\n${block}` }, ...rest];
  return [{ role: "system", content: block }, ...messages];
}

/**
 * The tokenizer, except that a rendering with tools renders the tools as a system message (and passes
 * no `tools` to the template). Every rendering goes through it (prompts, observation deltas, per-task
 * tools), so the token ids stay one consistent conversation.
 */
export function withToolSystemMessage(tokenizer: ModelTokenizer): ModelTokenizer {
  return {
    ...tokenizer,
    renderChat(messages, options = {}) {
      const { tools, ...rest } = options;
      if (tools === undefined || tools.length === 0) return tokenizer.renderChat(messages, rest);
      return tokenizer.renderChat(withToolMessage(messages, tools), rest);
    },
  };
}

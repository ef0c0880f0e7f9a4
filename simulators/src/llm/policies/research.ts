// `research` (Hermes; the research agent's scripted sub-agent, examples/research-agent): search the
// question with --tool; with --summarise, pass the passages' text to that tool; then answer with the
// summary (the summarise tool's result, else the top passage's text) and the passages' titles as
// numbered citations:
//
//   <summary>
//
//   Sources:
//   [1] "Title A"
//   [2] "Title B"
//
// No passages (a search error, no hits): it answers `No sources found.` Served on OpenAI chat with
// `tools`, its calls come back as `tool_calls` (chat-protocol.ts).
import { readPassages } from "../conversation.ts";
import type { Policy } from "./policy.ts";
import { hermesCall, withThink } from "./turn-text.ts";

const TOOL_RESPONSE = /<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/g;

export const researchPolicy: Policy = {
  name: "research",
  summary:
    "research agent: --tool search, then --summarise the passages (if set), then summary + `Sources:` citations",
  respond(ctx) {
    const { question, turn, messages, observations } = ctx.conversation;
    if (turn === 1)
      return {
        text: withThink(ctx, "I search.", hermesCall(ctx.options.tool, { query: question })),
        ends: true,
      };
    // the search's passages: every tool response so far (the summary holds none)
    const responses = messages
      .filter((m) => m.role === "user" || m.role === "tool")
      .flatMap((m) => [...m.content.matchAll(TOOL_RESPONSE)].map((r) => r[1]!));
    const passages = responses.flatMap(readPassages);
    if (passages.length === 0)
      return { text: withThink(ctx, "Nothing found.", "No sources found."), ends: true };
    const summarise = ctx.options.summarise;
    if (summarise !== undefined && turn === 2) {
      const text = passages.map((p) => p.text).join(" ");
      return { text: withThink(ctx, "I summarise.", hermesCall(summarise, { text })), ends: true };
    }
    const summary = summarise !== undefined ? observations.join(" ").trim() : passages[0]!.text;
    const sources = passages.map((p, i) => `[${i + 1}] "${p.title}"`).join("\n");
    return { text: withThink(ctx, "I answer.", `${summary}\n\nSources:\n${sources}`), ends: true };
  },
};

// TEST HELPER: renders chat conversations with the rollout service's tokenizer loader (`tokenizer.path:
// DIR`) and prints, per conversation, the prompt text and its token ids as JSON on stdout.
//   node test/engines/render_chat_ids.ts MODEL_DIR CONVERSATIONS.json
// CONVERSATIONS.json: [{ "messages": [...], "tools"?: [...] }, ...]; the generation prompt is appended.
import { readFile } from "node:fs/promises";
import { type ChatMessage, configuredTokenizer, type ModelTokenizer } from "@rlfactory/rollout";

type ChatTools = NonNullable<NonNullable<Parameters<ModelTokenizer["renderChat"]>[1]>["tools"]>;

const [dir, file] = process.argv.slice(2);
if (!dir || !file) throw new Error("usage: render_chat_ids.ts MODEL_DIR CONVERSATIONS.json");
const tokenizer = await configuredTokenizer(dir);
const conversations = JSON.parse(await readFile(file, "utf8")) as {
  messages: ChatMessage[];
  tools?: ChatTools;
}[];
const rendered = conversations.map((c) => {
  const text = tokenizer.renderChat(c.messages, {
    addGenerationPrompt: true,
    ...(c.tools === undefined ? {} : { tools: c.tools }),
  });
  return { text, ids: tokenizer.encode(text) };
});
process.stdout.write(`${JSON.stringify({ eos: tokenizer.eosTokenIds, rendered })}\n`);

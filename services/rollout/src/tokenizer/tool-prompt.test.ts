import type { ChatTool } from "@rlfactory/contracts";
import { CHATML_WITHOUT_TOOLS_TEMPLATE } from "@rlfactory/simulators/llm";
import { beforeAll, describe, expect, it } from "vitest";
import { configuredTokenizer, type ModelTokenizer } from "./model-tokenizer.ts";
import { hermesToolSystemPrompt, templateRendersTools, withToolSystemMessage } from "./tool-prompt.ts";

const search: ChatTool = {
  type: "function",
  function: {
    name: "search__search",
    description: "Search the corpus",
    parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
  },
};

let qwen3: ModelTokenizer;
let toolless: ModelTokenizer;
beforeAll(async () => {
  qwen3 = await configuredTokenizer("qwen3");
  toolless = await configuredTokenizer("qwen3", { chatTemplate: CHATML_WITHOUT_TOOLS_TEMPLATE });
});

describe("templateRendersTools", () => {
  it("tells a template that renders tools (Qwen3's) from one that drops them", () => {
    expect(templateRendersTools(qwen3)).toBe(true);
    expect(templateRendersTools(toolless)).toBe(false);
  });
});

describe("withToolSystemMessage", () => {
  it("puts the Hermes tool description into a new first system message", () => {
    const t = withToolSystemMessage(toolless);
    const text = t.renderChat([{ role: "user", content: "Who?" }], {
      tools: [search],
      addGenerationPrompt: true,
    });
    expect(text).toBe(
      `<|im_start|>system\n${hermesToolSystemPrompt([search])}<|im_end|>\n<|im_start|>user\nWho?<|im_end|>\n<|im_start|>assistant\n`,
    );
    expect(text).toContain(`<tools>\n${JSON.stringify(search)}\n</tools>`);
    expect(text).toContain("<tool_call>\n");
  });

  it("appends it to an existing system message, and leaves tool-less renderings alone", () => {
    const t = withToolSystemMessage(toolless);
    const messages = [
      { role: "system" as const, content: "Be brief." },
      { role: "user" as const, content: "Who?" },
    ];
    expect(t.renderChat(messages, { tools: [search] })).toBe(
      `<|im_start|>system\nBe brief.\n\n${hermesToolSystemPrompt([search])}<|im_end|>\n<|im_start|>user\nWho?<|im_end|>\n`,
    );
    expect(t.renderChat(messages)).toBe(toolless.renderChat(messages));
    expect(t.renderChat(messages, { tools: [] })).toBe(toolless.renderChat(messages));
  });
});

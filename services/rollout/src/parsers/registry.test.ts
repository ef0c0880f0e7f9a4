import { describe, expect, it } from "vitest";
import {
  TOOL_CALL_FORMAT_NAMES,
  type ToolCallFormatName,
  toolCallFormat,
  toolCallFormatNameSchema,
} from "./registry.ts";

describe("toolCallFormat", () => {
  it("derives the config's enum from the registry", () => {
    expect(toolCallFormatNameSchema.options).toEqual([...TOOL_CALL_FORMAT_NAMES]);
    expect(toolCallFormatNameSchema.safeParse("qwen2").success).toBe(false);
  });

  it("passes options to the format that takes them", () => {
    const format = toolCallFormat("search-r1", { searchTool: "wiki__search", topk: 5 });
    expect(format.parse("<search>x</search>").calls[0]).toMatchObject({
      name: "wiki__search",
      arguments: { query: "x", topk: 5 },
    });
  });

  it("rejects an unknown name, listing the known ones", () => {
    expect(() => toolCallFormat("qwen2" as ToolCallFormatName)).toThrow(/hermes, search-r1, llama3/);
    expect(() => toolCallFormat("__proto__" as ToolCallFormatName)).toThrow(/unknown tool-call format/);
  });
});

import { describe, expect, it } from "vitest";
import {
  HERMES_QA_SYSTEM,
  renderPromptTemplate,
  searchR1Prompt,
  searchR1Question,
  withSystemMessage,
} from "./prompt-templates.ts";

// `make_prefix` in PeterGriffinJin/Search-R1 scripts/data_process/nq_search.py, line by line as in the
// Python source: a triple-quoted f-string whose lines end in `\` (line continuation: the backslash
// and the newline vanish), then `Question: {question}\n`.
const PYTHON_SOURCE_LINES = [
  "Answer the given question. \\",
  "You must conduct reasoning inside <think> and </think> first every time you get new information. \\",
  "After reasoning, if you find you lack some knowledge, you can call a search engine by <search> query </search> and it will return the top searched results between <information> and </information>. \\",
  "You can search as many times as your want. \\",
  "If you find no further external knowledge needed, you can directly provide the answer inside <answer> and </answer>, without detailed illustrations. For example, <answer> Beijing </answer>. Question: {question}\\n",
];
const pythonPrefix = (question: string) =>
  PYTHON_SOURCE_LINES.map((l) => (l.endsWith("\\") ? l.slice(0, -1) : l))
    .join("")
    .replace("{question}", question)
    .replace(/\\n$/, "\n");

describe("search-r1 template", () => {
  it("is Search-R1's make_prefix byte for byte, typo included", () => {
    const q = "who got the first nobel prize in physics?";
    expect(searchR1Prompt(q)).toBe(pythonPrefix(q));
    expect(searchR1Prompt(q)).toContain("as many times as your want.");
    expect(Buffer.from(searchR1Prompt(q)).equals(Buffer.from(pythonPrefix(q)))).toBe(true);
  });

  it("normalises the question as Search-R1's process_fn does: strip, then append '?' if missing", () => {
    expect(searchR1Question("  when was the last time anyone was on the moon \n")).toBe(
      "when was the last time anyone was on the moon?",
    );
    expect(searchR1Question("Is it?")).toBe("Is it?");
    expect(searchR1Prompt(" x ")).toBe(pythonPrefix("x?"));
    expect(() => searchR1Question("   ")).toThrow(/empty question/);
  });

  it("is one user message; a configured system message goes before it", () => {
    expect(renderPromptTemplate("search-r1", "q?")).toEqual([{ role: "user", content: pythonPrefix("q?") }]);
    expect(renderPromptTemplate("search-r1", "q?", { system: "S" })).toEqual([
      { role: "system", content: "S" },
      { role: "user", content: pythonPrefix("q?") },
    ]);
  });
});

describe("hermes-qa template", () => {
  it("is a system message about tools and <answer>, then the question as the user message", () => {
    const msgs = renderPromptTemplate("hermes-qa", "  Who wrote Hamlet? ");
    expect(msgs).toEqual([
      { role: "system", content: HERMES_QA_SYSTEM },
      { role: "user", content: "Who wrote Hamlet?" },
    ]);
    expect(HERMES_QA_SYSTEM).toMatch(/provided tools/);
    expect(HERMES_QA_SYSTEM).toContain("<answer>");
    expect(HERMES_QA_SYSTEM).toContain("</answer>");
    // The chat template renders the catalog; the text must not name tools or a call syntax.
    expect(HERMES_QA_SYSTEM).not.toMatch(/search|<tool_call>|<search>/i);
  });

  it("takes a configured system message instead of its own", () => {
    expect(renderPromptTemplate("hermes-qa", "q", { system: "Be brief." })[0]).toEqual({
      role: "system",
      content: "Be brief.",
    });
  });
});

describe("withSystemMessage", () => {
  it("replaces a leading system message or prepends one, and leaves the prompt alone without one", () => {
    const user = { role: "user" as const, content: "u" };
    expect(withSystemMessage([{ role: "system", content: "old" }, user], "new")).toEqual([
      { role: "system", content: "new" },
      user,
    ]);
    expect(withSystemMessage([user], "new")).toEqual([{ role: "system", content: "new" }, user]);
    expect(withSystemMessage([user], undefined)).toEqual([user]);
  });
});

// A task's tools with aliases: rendered under the alias with the target's schema, offered alone when
// the task names no tools, mapped back to gateway names; only the environment server's tools run in
// the episode.

import type { ChatTool } from "@rlfactory/contracts";
import { describe, expect, it } from "vitest";
import { taskTools } from "./task-tools.ts";

const tool = (name: string): ChatTool => ({
  type: "function",
  function: { name, description: `${name} tool`, parameters: { type: "object", properties: {} } },
});
const CONFIGURED = [tool("calculator__calculate")];
const CATALOG = [...CONFIGURED, tool("bfcl__cd"), tool("bfcl__ls")];

describe("taskTools", () => {
  it("renders aliases under their names with the target's description, and offers only them by default", () => {
    const t = taskTools(
      { tools: CONFIGURED, catalog: CATALOG },
      { tool_aliases: { cd: "bfcl__cd", ls: "bfcl__ls" }, environment: { server: "bfcl", config: {} } },
    );
    expect(t.plan.restricted).toBe(true);
    expect(t.plan.perUserTurn[0]!.map((x) => [x.function.name, x.function.description])).toEqual([
      ["cd", "bfcl__cd tool"],
      ["ls", "bfcl__ls tool"],
    ]);
    expect([t.gatewayName("cd"), t.gatewayName("calculator__calculate")]).toEqual([
      "bfcl__cd",
      "calculator__calculate",
    ]);
    // only the environment server's tools carry the episode id; a stateless tool elsewhere must not
    expect([t.inEpisode("bfcl__cd"), t.inEpisode("calculator__calculate")]).toEqual([true, false]);
  });

  it("lets tools and turns[].tools name aliases beside configured tools", () => {
    const t = taskTools(
      { tools: CONFIGURED, catalog: CATALOG },
      {
        tools: ["cd", "calculator__calculate"],
        turns: [{ content: "next", tools: ["ls"] }],
        tool_aliases: { cd: "bfcl__cd", ls: "bfcl__ls" },
      },
    );
    expect(t.plan.perUserTurn.map((ts) => ts.map((x) => x.function.name))).toEqual([
      ["cd", "calculator__calculate"],
      ["ls"],
    ]);
    expect(t.inEpisode("bfcl__cd")).toBe(false); // no environment: nothing runs in an episode
  });

  it("refuses an alias whose target is not in the catalog, naming the field", () => {
    expect(() =>
      taskTools({ tools: CONFIGURED, catalog: CATALOG }, { tool_aliases: { mv: "bfcl__mv" } }),
    ).toThrow(/tool_aliases\.mv names bfcl__mv, not in the gateway's catalog/);
  });
});

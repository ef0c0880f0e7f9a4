// invoke: one CallTools request for the turn's offered calls, each outcome matched to its call, the
// ends the gateway can cause. Scripted tool caller; real task tool plans (aliases, episodes).
import { beforeAll, describe, expect, it } from "vitest";
import { GatewayCallError, type ToolCallInput } from "../gateway-tools.ts";
import type { ToolCallRequest } from "../parsers/types.ts";
import { type ModelTokenizer, qwen3Tokenizer } from "../tokenizer/model-tokenizer.ts";
import { ok, type Script, scriptedState, TASK } from "./__fixtures__/scripted-loop.ts";
import { invokePhase } from "./invoke-phase.ts";

let tokenizer: ModelTokenizer;
beforeAll(async () => {
  tokenizer = await qwen3Tokenizer();
});

const request = (index: number, name: string, args: Record<string, unknown>): ToolCallRequest => ({
  name,
  arguments: args,
  raw: JSON.stringify({ name, arguments: args }),
  index,
});
/** Each call answered with its own arguments, so that a mismatch shows. */
const echo = (calls: readonly ToolCallInput[]) =>
  ok(calls).map((o, k) => ({ ...o, text: `${calls[k]!.name} ${JSON.stringify(calls[k]!.arguments)}` }));

const invoke = async (
  script: Script,
  calls: ToolCallRequest[],
  setup?: (s: ReturnType<typeof scriptedState>) => void,
) => {
  const s = scriptedState(script, tokenizer);
  setup?.(s);
  const out = await invokePhase(s.state, calls);
  return { ...s, out };
};

describe("the invoke phase", () => {
  it("sends only the offered calls, in one request, and matches each outcome to its call", async () => {
    const task = { ...TASK, tools: ["search__search"] };
    const calls = [
      request(0, "search__search", { query: "a" }),
      request(1, "calculator__calculate", { expression: "1 + 1" }),
      request(3, "search__search", { query: "b" }),
    ];
    const { h, out } = await invoke({ task, sampler: [], tools: [{ outcomes: echo }] }, calls);
    expect(h.toolTurns).toEqual([
      [
        { name: "search__search", arguments: { query: "a" } },
        { name: "search__search", arguments: { query: "b" } },
      ],
    ]);
    expect(h.toolOptions).toEqual([{ trajectoryId: "g/0", deadlineMs: 1000, signal: true }]);
    if (out.kind !== "answered") throw new Error(`ended: ${JSON.stringify(out)}`);
    expect(out.results.map((r) => [r.call.index, r.outcome.errorCode, r.outcome.text])).toEqual([
      [0, "OK", 'search__search {"query":"a"}'],
      [1, "TOOL_NOT_OFFERED", "calculator__calculate is not offered in this turn (offered: search__search)"],
      [3, "OK", 'search__search {"query":"b"}'],
    ]);
  });

  it("calls aliases by their gateway names, and only the environment server's tools in the episode", async () => {
    const task = {
      ...TASK,
      environment: { server: "search", config: {} },
      tool_aliases: { calc: "calculator__calculate" },
      tools: ["search__search", "calc"],
    };
    const calls = [request(0, "calc", { expression: "2 * 2" }), request(1, "search__search", { query: "x" })];
    const { h, out } = await invoke(
      { task, sampler: [], tools: [{ outcomes: echo }] },
      calls,
      ({ state }) => {
        state.episodeId = "ep1.0";
      },
    );
    expect(h.toolTurns).toEqual([
      [
        { name: "calculator__calculate", arguments: { expression: "2 * 2" } },
        { name: "search__search", arguments: { query: "x" }, episodeId: "ep1.0" },
      ],
    ]);
    // the result keeps the name the model wrote
    expect(out.kind === "answered" && out.results.map((r) => r.call.name)).toEqual([
      "calc",
      "search__search",
    ]);
  });

  it("makes no request when no call is offered (the time is still recorded)", async () => {
    const task = { ...TASK, tools: [] };
    const { h, out, state } = await invoke({ task, sampler: [] }, [
      request(0, "search__search", { query: "a" }),
    ]);
    expect(h.toolTurns).toEqual([]);
    expect(out.kind === "answered" && out.results.map((r) => r.outcome.errorCode)).toEqual([
      "TOOL_NOT_OFFERED",
    ]);
    state.builder.finish("failed", "test");
    expect(Object.keys(state.builder.toJSON().timings)).toEqual(["tool_ms"]);
  });

  it("ends the trajectory when the episode is gone, the gateway fails or the run is cancelled", async () => {
    const calls = [request(0, "search__search", { query: "a" })];
    const lost = await invoke(
      {
        sampler: [],
        tools: [
          { outcomes: (c) => ok(c).map((o) => ({ ...o, errorCode: "EPISODE_NOT_FOUND", text: "no ep" })) },
        ],
      },
      calls,
    );
    expect(lost.out).toEqual({
      kind: "end",
      status: "failed",
      reason: "environment EPISODE_NOT_FOUND: no ep",
    });
    const down = await invoke(
      {
        sampler: [],
        tools: [{ error: new GatewayCallError("UNAVAILABLE", "gateway CallTools failed: down") }],
      },
      calls,
    );
    expect(down.out).toEqual({ kind: "end", status: "failed", reason: "gateway CallTools failed: down" });
    const cancelled = await invoke({ sampler: [], tools: [{ hang: true }] }, calls);
    expect(cancelled.out).toEqual({ kind: "end", status: "aborted", reason: "cancelled" });
  });

  it("lets anything else the tool caller throws through (the loop ends the trajectory as an internal error)", async () => {
    const calls = [request(0, "search__search", { query: "a" })];
    await expect(
      invoke({ sampler: [], tools: [{ error: new TypeError("not iterable") }] }, calls),
    ).rejects.toThrow("not iterable");
  });
});

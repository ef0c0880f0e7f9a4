// next user turn: who writes it, what is appended (the template's user message, a changed tool list
// first), what the simulator sees, the episode's snapshot, and the ends. Real Qwen3 tokenizer and chat
// template delta; scripted sampler, user simulator and episode RPCs.
import type { Task } from "@rlfactory/contracts";
import { beforeAll, describe, expect, it } from "vitest";
import { type ModelTokenizer, qwen3Tokenizer } from "../tokenizer/model-tokenizer.ts";
import { SCRIPTED, type Script, SIMULATED, scriptedState } from "./__fixtures__/scripted-loop.ts";
import { EpisodeError } from "./episodes.ts";
import { generatePhase } from "./generate-phase.ts";
import { parsePhase } from "./parse-phase.ts";
import { nextUserSource, userTurnPhase } from "./user-turn-phase.ts";

let tokenizer: ModelTokenizer;
beforeAll(async () => {
  tokenizer = await qwen3Tokenizer();
});

/** Samples `reply` (turn `turn`), then runs the user-turn phase on it. */
const userTurn = async (
  script: Partial<Script> & { task: Task },
  reply: string,
  setup?: (s: ReturnType<typeof scriptedState>) => void,
) => {
  const s = scriptedState({ ...script, sampler: [{ text: reply }] }, tokenizer);
  setup?.(s);
  const generated = await generatePhase(s.state, 0);
  if (generated.kind !== "sampled") throw new Error("the scripted turn was not sampled");
  const out = await userTurnPhase(s.state, generated.sample, parsePhase(s.state, generated.sample));
  s.state.builder.finish("failed", "test");
  const t = s.state.builder.toJSON();
  const obs = t.turns[1];
  const text = obs === undefined ? "" : tokenizer.decode(t.response_ids.slice(obs.start, obs.end));
  return { ...s, out, t, text };
};

describe("the next user turn", () => {
  it("comes from the script while it has messages, from the simulator while its max_turns allow, else from nobody", () => {
    const scripted = scriptedState({ sampler: [], task: SCRIPTED }, tokenizer).state;
    expect(nextUserSource(scripted)).toBe("script");
    scripted.userTurns.push({ ...scripted.userTurns[0]!, index: 1 }, { ...scripted.userTurns[0]!, index: 2 });
    expect(nextUserSource(scripted)).toBeUndefined();
    expect(nextUserSource(scriptedState({ sampler: [] }, tokenizer).state)).toBeUndefined();
    const simulated = scriptedState({ sampler: [], task: SIMULATED, user: [] }, tokenizer).state;
    expect(nextUserSource(simulated)).toBe("simulator");
    for (let k = 1; k <= 8; k++) simulated.userTurns.push({ ...simulated.userTurns[0]!, index: k });
    expect(nextUserSource(simulated)).toBeUndefined();
  });

  it("appends the script's message as the template renders it (loss mask 0), the new tools first, and records it", async () => {
    const task: Task = {
      ...SCRIPTED,
      tools: ["search__search"],
      turns: [{ content: "Now compute.", tools: ["calculator__calculate"] }],
    };
    const { out, t, text, state } = await userTurn({ task }, "It is in Paris.");
    expect(out).toEqual({ kind: "next" });
    expect(text).toMatch(/^\n<\|im_start\|>system\nThe tools available from now on changed\.\n\n# Tools\n/);
    expect(text).toMatch(/<\|im_start\|>user\nNow compute\.<\|im_end\|>\n<\|im_start\|>assistant\n$/);
    expect(new Set(t.loss_mask.slice(t.turns[1]!.start))).toEqual(new Set([0]));
    expect([...state.offered]).toEqual(["calculator__calculate"]);
    expect(state.userTurns[1]).toEqual({
      index: 1,
      source: "script",
      content: "Now compute.",
      turn: 1,
      response_start: t.turns[1]!.start,
      tools: ["calculator__calculate"],
    });
    // a reply in plain text is a well-formed turn
    expect(state.result.sampledTurnMalformed).toEqual([false]);
  });

  it("asks the simulator with the user's view (no <think>), appends its message; its stop marker completes", async () => {
    const { h, out, state } = await userTurn(
      { task: SIMULATED, user: [{ message: "Which country?" }] },
      "<think>easy</think>It is in Paris.",
    );
    expect(out).toEqual({ kind: "next" });
    expect(h.userRequests).toEqual([
      [
        { from: "user", content: "In which city is the Eiffel Tower?" },
        { from: "policy", content: "It is in Paris." },
      ],
    ]);
    expect(state.userTurns[1]).toMatchObject({ index: 1, source: "simulator", content: "Which country?" });
    const stopped = await userTurn({ task: SIMULATED, user: [{ stop: true }] }, "It is in Paris.");
    expect(stopped.out).toEqual({ kind: "end", status: "completed", reason: "user_stop" });
    expect(Object.keys(stopped.t.timings)).toEqual(["generate_ms", "user_ms"]);
  });

  it("snapshots the episode of the user turn that ends; a failed snapshot fails the trajectory", async () => {
    const task: Task = { ...SCRIPTED, environment: { server: "search", config: {} } };
    const setEpisode = ({ state }: ReturnType<typeof scriptedState>) => {
      state.episodeId = "ep1.0";
    };
    const { h, state } = await userTurn(
      { task, episode: { id: "ep1.0", snapshots: [{ n: 1 }] } },
      "Paris.",
      setEpisode,
    );
    expect(h.episodeCalls).toEqual(["snapshot ep1.0"]);
    expect(state.environment?.snapshots).toEqual([{ user_turn: 0, state: { n: 1 } }]);
    const failed = await userTurn(
      {
        task,
        episode: { id: "ep1.0", snapshots: [new EpisodeError("EPISODE_LOST", "SnapshotEpisode: gone")] },
      },
      "Paris.",
      setEpisode,
    );
    expect(failed.out).toEqual({
      kind: "end",
      status: "failed",
      reason: "environment EPISODE_LOST: SnapshotEpisode: gone",
    });
  });

  it("ends truncated, no message appended, on the last allowed turn or when the message does not fit", async () => {
    const last = await userTurn({ task: SCRIPTED, limits: { maxTurns: 1 } }, "Paris.");
    expect(last.out).toEqual({ kind: "end", status: "truncated", reason: "max_turns (1) reached" });
    const long = await userTurn(
      { task: { ...SCRIPTED, turns: [{ content: "more ".repeat(200) }] }, room: 100 },
      "Paris.",
    );
    expect(long.out).toMatchObject({ kind: "end", status: "truncated" });
    expect((long.out as { reason: string }).reason).toMatch(
      /^context budget of \d+ tokens reached: user turn 1 needs \d+ more$/,
    );
    for (const { t, state } of [last, long]) {
      expect([t.turns.map((x) => x.kind), state.userTurns.length]).toEqual([["sampled"], 1]);
    }
  });
});

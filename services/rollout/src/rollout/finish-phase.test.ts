// finish: the episode opened before the first turn and ended on every exit (its final state the last
// snapshot), then the status and the total time on the record. Scripted episode RPCs.
import type { Task } from "@rlfactory/contracts";
import { beforeAll, describe, expect, it } from "vitest";
import { type ModelTokenizer, qwen3Tokenizer } from "../tokenizer/model-tokenizer.ts";
import { type EpisodeScript, scriptedState, TASK } from "./__fixtures__/scripted-loop.ts";
import { EpisodeError } from "./episodes.ts";
import { finishPhase, openEpisode } from "./finish-phase.ts";
import { ended } from "./loop-outcome.ts";
import { applyStateDiff, type StateDiff, stateDigest } from "./state-diff.ts";

let tokenizer: ModelTokenizer;
beforeAll(async () => {
  tokenizer = await qwen3Tokenizer();
});

const IN_ENV: Task = { ...TASK, environment: { server: "search", config: {} } };

/** A state whose run opens the scripted episode. */
const withEpisode = (episode: EpisodeScript) =>
  scriptedState({ sampler: [], task: IN_ENV, episode }, tokenizer);

describe("the finish phase", () => {
  it("sets the status and reason on the result and the record, with the total time", async () => {
    const { state } = scriptedState({ sampler: [] }, tokenizer);
    const result = await finishPhase(state, ended("truncated", "max_turns (4) reached"));
    expect([result.status, result.statusReason]).toEqual(["truncated", "max_turns (4) reached"]);
    const t = result.builder.toJSON();
    expect([t.status, t.status_reason, Object.keys(t.timings)]).toEqual([
      "truncated",
      "max_turns (4) reached",
      ["total_ms"],
    ]);
  });

  it("opens the sample's episode; one that cannot open fails the trajectory", async () => {
    const { state } = withEpisode({ id: "ep1.0" });
    expect([await openEpisode(state), state.episodeId]).toEqual([undefined, "ep1.0"]);
    const failed = withEpisode({ id: new EpisodeError("UNAVAILABLE", "StartEpisode: down") });
    expect(await openEpisode(failed.state)).toEqual(
      ended("failed", "environment UNAVAILABLE: StartEpisode: down"),
    );
    expect(await openEpisode(scriptedState({ sampler: [] }, tokenizer).state)).toBeUndefined();
  });

  it("ends the episode once and stores its final state as the last snapshot", async () => {
    const { h, state } = withEpisode({ id: "ep1.0", end: { balance: 3 } });
    await openEpisode(state);
    const result = await finishPhase(state, ended("completed", "answer"));
    expect(h.episodeCalls).toEqual(["end ep1.0"]);
    expect(state.episodeId).toBeUndefined();
    expect(result.builder.toJSON().metadata?.environment).toEqual({
      server: "search",
      snapshots: [{ user_turn: 0, final: true, state: { balance: 3 } }],
    });
  });

  it("stores a final state over the bound as its diff against the episode's initial state", async () => {
    const rows = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`r${i}`, { balance: i }]));
    const final = { ...rows, r7: { balance: 70 } };
    const { state } = scriptedState(
      {
        sampler: [],
        task: IN_ENV,
        episode: { id: "ep1.0", end: final, initial: rows },
        maxSnapshotBytes: 1_000,
      },
      tokenizer,
    );
    await openEpisode(state);
    const result = await finishPhase(state, ended("completed", "answer"));
    const env = result.builder.toJSON().metadata?.environment as { snapshots: Record<string, unknown>[] };
    expect(env.snapshots).toEqual([
      {
        user_turn: 0,
        final: true,
        diff: [{ op: "replace", path: "/r7/balance", value: 70 }],
        base: { digest: stateDigest(rows), bytes: JSON.stringify(rows).length },
        bytes: JSON.stringify(final).length,
      },
    ]);
    expect(applyStateDiff(rows, env.snapshots[0]?.diff as StateDiff)).toEqual(final);
  });

  it("an end that fails fails a trajectory that would be scored, not one already failed or aborted", async () => {
    const gone = () => new EpisodeError("EPISODE_LOST", "EndEpisode: gone");
    const outcomes = [];
    for (const end of [
      ended("completed", "answer"),
      ended("truncated", "x"),
      ended("aborted", "cancelled"),
      ended("failed", "y"),
    ]) {
      const { state } = withEpisode({ id: "ep1.0", end: gone() });
      await openEpisode(state);
      const result = await finishPhase(state, end);
      outcomes.push([result.status, result.statusReason]);
    }
    expect(outcomes).toEqual([
      ["failed", "environment EPISODE_LOST: EndEpisode: gone"],
      ["failed", "environment EPISODE_LOST: EndEpisode: gone"],
      ["aborted", "cancelled"],
      ["failed", "y"],
    ]);
  });
});

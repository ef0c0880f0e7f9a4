// env_reward on hand-made trajectories: the environment's own reward read from the final snapshot (an
// OpenEnv episode's summed step rewards at `reward`, or any number at `path`), and the reward errors.
import { rewardInput, trajectoryWith } from "@rlfactory/test-support/reward-fixtures";
import { describe, expect, it } from "vitest";
import { createRewardFn } from "./reward-config.ts";

const withState = (state: unknown) => ({
  ...trajectoryWith([{ kind: "sampled" }]),
  metadata: { environment: { server: "echo_env", snapshots: [{ user_turn: 0, final: true, state }] } },
});
const tools = { call: async () => ({ isError: false, errorCode: "OK", text: "", structured: null }) };

describe("env_reward", () => {
  it("scores the summed step reward an OpenEnv snapshot keeps at `reward`, weighted", async () => {
    const fn = createRewardFn([{ type: "env_reward", weight: 2 }]);
    const r = await fn.score(rewardInput({ trajectory: withState({ reward: -1.5, steps: 3 }) }), { tools });
    expect([r.reward, r.components.env_reward]).toEqual([-3, -1.5]);
  });

  it("reads any number (or boolean) at `path`", async () => {
    const fn = createRewardFn([{ type: "env_reward", path: "$.game.won" }]);
    const won = await fn.score(rewardInput({ trajectory: withState({ game: { won: true } }) }), { tools });
    expect(won.reward).toBe(1);
    const lost = await fn.score(rewardInput({ trajectory: withState({ game: { won: false } }) }), { tools });
    expect(lost.reward).toBe(0);
  });

  it("no number there, or no snapshot: reward null with a reward_error, never 0", async () => {
    const fn = createRewardFn([{ type: "env_reward" }]);
    const text = await fn.score(rewardInput({ trajectory: withState({ reward: "high" }) }), { tools });
    expect([text.reward, text.error?.code]).toEqual([null, "NO_ENV_REWARD"]);
    const none = await fn.score(rewardInput(), { tools });
    expect([none.reward, none.error?.code]).toEqual([null, "NO_SNAPSHOT"]);
    expect(() => createRewardFn([{ type: "env_reward", path: "$.a[" }])).toThrow(/malformed JSON path/);
  });
});

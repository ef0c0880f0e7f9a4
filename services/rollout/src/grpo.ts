// Group-relative advantages (GRPO and Dr. GRPO) for one group of rollouts of the same task.
//
// Matches verl's `compute_grpo_outcome_advantage` (verl/trainer/ppo/core_algos.py):
//   grpo:    A_i = (r_i − mean) / (std + ε)      (`norm_adv_by_std_in_grpo: true`)
//   dr_grpo: A_i =  r_i − mean                   (`norm_adv_by_std_in_grpo: false`, arXiv 2503.20783)
// with ε = 1e-6 and `std = torch.std(scores)`, torch's default *unbiased* (Bessel, n − 1) estimator;
// we use the same (so for n = 2, rewards 0 and 1 give ±0.7071, not ±1).
// Where we differ from verl, on purpose:
//   - null rewards (scoring hit an infrastructure failure) are left out of the statistics and get a
//     null advantage: the sample carries no training signal instead of a fabricated 0 reward;
//   - a group whose scored rewards are all equal gets exactly 0 (verl: (r − mean)/(0 + ε), 0 up to
//     rounding), and so does a single scored sample (verl passes a lone sample's raw reward through
//     with mean 0, std 1: not a group-relative signal).
import type { GroupStats } from "@rlfactory/contracts";

export type AdvantageMode = "grpo" | "dr_grpo";

export interface GroupAdvantageOptions {
  mode: AdvantageMode;
  /** Added to the std before dividing (grpo only); default 1e-6 as in verl. */
  epsilon?: number;
}

export type { GroupStats };

export interface GroupAdvantages {
  /** Aligned with the input; null where the reward is null. */
  advantages: (number | null)[];
  stats: GroupStats;
}

export function groupAdvantages(
  rewards: readonly (number | null)[],
  options: GroupAdvantageOptions,
): GroupAdvantages {
  const epsilon = options.epsilon ?? 1e-6;
  if (!(epsilon >= 0)) throw new RangeError(`epsilon must be ≥ 0, got ${epsilon}`);
  if (options.mode !== "grpo" && options.mode !== "dr_grpo") {
    throw new RangeError(`unknown advantage mode "${String(options.mode)}" (grpo, dr_grpo)`);
  }
  const scored: number[] = [];
  rewards.forEach((r, i) => {
    if (r === null) return;
    if (!Number.isFinite(r)) throw new RangeError(`rewards[${i}] = ${r} is not a finite number or null`);
    scored.push(r);
  });
  const n = scored.length;
  if (n === 0) {
    return {
      advantages: rewards.map(() => null),
      stats: {
        count: rewards.length,
        scored: 0,
        mean: null,
        std: null,
        min: null,
        max: null,
        all_equal: true,
      },
    };
  }
  const mean = scored.reduce((a, b) => a + b, 0) / n;
  const std = n < 2 ? 0 : Math.sqrt(scored.reduce((a, r) => a + (r - mean) ** 2, 0) / (n - 1));
  const min = Math.min(...scored);
  const max = Math.max(...scored);
  const allEqual = min === max;
  const advantage = (r: number): number => {
    if (allEqual) return 0;
    return options.mode === "grpo" ? (r - mean) / (std + epsilon) : r - mean;
  };
  return {
    advantages: rewards.map((r) => (r === null ? null : advantage(r))),
    stats: { count: rewards.length, scored: n, mean, std, min, max, all_equal: allEqual },
  };
}

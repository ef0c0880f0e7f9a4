// Per-trajectory budgets of a model server: how many calls and how many tokens (prompt + completion)
// one trajectory (the call's trajectory id) may spend on the server's tools, all of them together.
//
//   reserve   before a call reaches the model: refused (BUDGET_EXCEEDED) when the trajectory has made
//             `calls` calls or spent `tokens` tokens; otherwise the call is counted at once, so that
//             concurrent calls of one trajectory cannot all slip under the limit
//   commit    the answer's tokens are added
//   release   the call got no answer (unreachable, timeout, cancelled): it does not count, so a retry
//             by the gateway's policy spends one call, not two
//
// A token budget can be overrun by the one call that crosses it (its size is known only after it);
// the next call is refused. Calls without a trajectory id are not counted. The most recent
// MAX_TRAJECTORIES trajectories are remembered; an older one starts again from zero.
import { GatewayError } from "./errors.ts";

export interface BudgetLimits {
  calls: number | undefined;
  tokens: number | undefined;
}

export interface Spent {
  calls: number;
  tokens: number;
}

export interface BudgetTicket {
  commit(tokens: number): void;
  release(): void;
}

const MAX_TRAJECTORIES = 100_000;
const NOTHING: BudgetTicket = { commit() {}, release() {} };

export class TrajectoryBudgets {
  readonly #limits: BudgetLimits;
  readonly #server: string;
  readonly #spent = new Map<string, Spent>();

  constructor(server: string, limits: BudgetLimits) {
    this.#server = server;
    this.#limits = limits;
  }

  /** What a trajectory has spent so far (zero when unknown). */
  spent(trajectoryId: string): Spent {
    const s = this.#spent.get(trajectoryId);
    return s ? { ...s } : { calls: 0, tokens: 0 };
  }

  /** Counts one call of `trajectoryId`, or throws BUDGET_EXCEEDED naming the limit it reached. */
  reserve(trajectoryId: string | undefined, tool: string): BudgetTicket {
    const { calls, tokens } = this.#limits;
    if (!trajectoryId || (calls === undefined && tokens === undefined)) return NOTHING;
    let spent = this.#spent.get(trajectoryId);
    if (spent) this.#spent.delete(trajectoryId); // re-inserted below: the most recent last
    spent ??= { calls: 0, tokens: 0 };
    this.#spent.set(trajectoryId, spent);
    if (this.#spent.size > MAX_TRAJECTORIES) {
      const oldest = this.#spent.keys().next().value;
      if (oldest !== undefined) this.#spent.delete(oldest);
    }
    const where = `${this.#server}__${tool}`;
    if (calls !== undefined && spent.calls >= calls)
      throw new GatewayError(
        "BUDGET_EXCEEDED",
        `${where}: this trajectory has used its ${calls} calls of server "${this.#server}" (trajectory_budget.calls)`,
      );
    if (tokens !== undefined && spent.tokens >= tokens)
      throw new GatewayError(
        "BUDGET_EXCEEDED",
        `${where}: this trajectory has used ${spent.tokens} of its ${tokens} tokens of server "${this.#server}" (trajectory_budget.tokens)`,
      );
    spent.calls++;
    const held = spent;
    let settled = false;
    return {
      commit(used: number) {
        if (settled) return;
        settled = true;
        held.tokens += used;
      },
      release() {
        if (settled) return;
        settled = true;
        held.calls--;
      },
    };
  }
}

// A bundle task as a rollout task (the contract Task, @rlfactory/contracts), in the shape `rlf data ftrl` gives
// its tasks: the environment is the bundle's server with `{task: id}` as the episode config; the model
// sees the bundle's own tool names (`tools`), each an alias of `SERVER__tool` (`tool_aliases`); the
// ground truth is the answer; `extra_info` carries the question, the bundle and its hash, the unsolved
// set (by the names the model sees), the ground-truth calls turn by turn (`actions`: turn H holds hop H
// of every branch, by the names the model sees) and the complexity grade.

import type { Task } from "@rlfactory/contracts";
import type { BundleAction, BundleTask } from "@rlfactory/environments";

export interface RolloutTaskOptions {
  /** The bundle's server name on the gateway (`rlf env serve BUNDLE --name SERVER`). */
  server: string;
  dataSource: string;
  bundle: { name: string; hash: string };
  /** The task's ground-truth calls turn by turn (default: the bundle task's `actions`, one turn). */
  actionTurns?: BundleAction[][];
}

export function bundleTaskToRolloutTask(task: BundleTask, options: RolloutTaskOptions): Task {
  const { server } = options;
  const actions = options.actionTurns ?? (task.actions?.length ? [task.actions] : []);
  return {
    id: task.id,
    data_source: options.dataSource,
    prompt: [{ role: "user", content: task.question ?? task.instruction ?? "" }],
    ...(task.answer !== undefined ? { ground_truth: task.answer } : {}),
    extra_info: {
      bundle: options.bundle.name,
      bundle_hash: options.bundle.hash,
      ...(task.question !== undefined ? { question: task.question } : {}),
      unsolved_set: task.unsolved_set ?? {},
      ...(actions.length > 0 ? { actions } : {}),
      ...(task.complexity !== undefined ? { complexity: task.complexity } : {}),
    },
    tools: [...task.tools],
    tool_aliases: Object.fromEntries(task.tools.map((tool) => [tool, `${server}__${tool}`])),
    environment: { server, config: { task: task.id } },
  };
}

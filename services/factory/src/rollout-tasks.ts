// A bundle task as a rollout task (services/rollout/src/task.ts): its environment is the bundle's
// server with `{task: id}` as the episode config; it offers the bundle task's tools as
// `SERVER__tool`, shown to the model under their own names (`tool_aliases`); the ground truth is the
// answer; `extra_info` carries the question, the unsolved set (by the names the model sees) and the
// complexity grade.
import type { BundleTask } from "@rlfactory/environments";
import type { Task } from "@rlfactory/rollout";

export function bundleTaskToRolloutTask(
  task: BundleTask,
  options: { server: string; dataSource: string },
): Task {
  const { server } = options;
  const aliases = Object.fromEntries(task.tools.map((tool) => [tool, `${server}__${tool}`]));
  return {
    id: task.id,
    data_source: options.dataSource,
    prompt: [{ role: "user", content: task.question ?? task.instruction ?? "" }],
    ...(task.answer !== undefined ? { ground_truth: task.answer } : {}),
    extra_info: {
      ...(task.question !== undefined ? { question: task.question } : {}),
      unsolved_set: task.unsolved_set ?? {},
      ...(task.complexity !== undefined ? { complexity: task.complexity } : {}),
    },
    tools: task.tools.map((tool) => `${server}__${tool}`),
    tool_aliases: aliases,
    environment: { server, config: { task: task.id } },
  };
}

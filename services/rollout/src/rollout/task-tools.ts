// The tools a task can offer: the configured tools, plus its `tool_aliases` — model-visible names for
// gateway tools (BFCL's `cd` → `bfcl__cd`), rendered under the alias name with the gateway tool's
// description and schema. A task with aliases and no `tools` offers exactly its aliases. A call is
// made by its gateway name; when the task has an `environment`, calls to that server's tools carry
// the trajectory's episode id (and only those: another server's tool refuses one).
import type { ChatTool, Task } from "@rlfactory/contracts";
import { type ToolPlan, toolPlan } from "./offered-tools.ts";

export interface TaskTools {
  plan: ToolPlan;
  /** The gateway name of a model-visible name (itself when it is no alias). */
  gatewayName(name: string): string;
  /** Whether calls to this gateway tool run in the task's episode. */
  inEpisode(gatewayName: string): boolean;
}

/**
 * The task's tool plan over the configured tools and its aliases; `catalog` (the gateway's whole
 * catalog) is where alias targets are looked up (default: the configured tools). Throws naming the field.
 */
export function taskTools(
  deps: { tools: readonly ChatTool[]; catalog?: readonly ChatTool[] | undefined },
  task: Pick<Task, "tools" | "turns" | "tool_aliases" | "environment">,
): TaskTools {
  const aliases = task.tool_aliases ?? {};
  const catalog = new Map((deps.catalog ?? deps.tools).map((t) => [t.function.name, t]));
  const aliased: ChatTool[] = Object.entries(aliases).map(([alias, target]) => {
    const tool = catalog.get(target);
    if (tool === undefined) {
      throw new Error(
        `tool_aliases.${alias} names ${target}, not in the gateway's catalog (${[...catalog.keys()].join(", ") || "none"})`,
      );
    }
    return { ...tool, function: { ...tool.function, name: alias } };
  });
  const aliasNames = new Set(Object.keys(aliases));
  const all = [...deps.tools.filter((t) => !aliasNames.has(t.function.name)), ...aliased];
  const tools = task.tools ?? (task.tool_aliases === undefined ? undefined : Object.keys(aliases));
  const plan = toolPlan(all, {
    ...(tools === undefined ? {} : { tools }),
    ...(task.turns ? { turns: task.turns } : {}),
  });
  const prefix = task.environment === undefined ? undefined : `${task.environment.server}__`;
  return {
    plan,
    gatewayName: (name) => aliases[name] ?? name,
    inEpisode: (name) => prefix !== undefined && name.startsWith(prefix),
  };
}

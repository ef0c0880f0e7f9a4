// The tools of the scaled tasks under bundle-wide names, ready to deploy: a bundle's tool names are
// unique, so a name two tasks use gets the task's id (without its "t") as a suffix. Deterministic: the
// same tasks give the same names, in id order.
import type { PlannedTool } from "./build-types.ts";
import type { Scaling, SubQuestion } from "./stage-shapes.ts";

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Every tool of every scaled task under its bundle-wide name, in id order. */
export function planTools(tasks: { id: string; subs: SubQuestion[]; scaled: Scaling }[]): PlannedTool[] {
  const users = new Map<string, number>();
  for (const t of tasks)
    for (const name of new Set([...t.scaled.tools, ...t.scaled.distractors].map((x) => x.name)))
      users.set(name, (users.get(name) ?? 0) + 1);
  const bundleName = (name: string, task: string) =>
    (users.get(name) ?? 0) > 1 ? `${name.slice(0, 50)}_${task.slice(1)}` : name;
  const planned: PlannedTool[] = [];
  for (const t of tasks) {
    for (const tool of t.scaled.tools) {
      const name = bundleName(tool.name, t.id);
      planned.push({
        id: `${t.id}.${name}`,
        task: t.id,
        name,
        description: tool.description,
        parameters: tool.parameters,
        calls: [...tool.calls]
          .sort((a, b) => (a.sub < b.sub ? -1 : a.sub > b.sub ? 1 : 0))
          .map((c) => {
            const sub = t.subs.find((s) => s.key === c.sub) as SubQuestion;
            return { sub: c.sub, question: sub.question, arguments: c.arguments, answer: sub.answer };
          }),
        distractor: false,
      });
    }
    for (const d of t.scaled.distractors) {
      const name = bundleName(d.name, t.id);
      planned.push({
        id: `${t.id}.${name}`,
        task: t.id,
        name,
        description: d.description,
        parameters: d.parameters,
        calls: [{ arguments: d.example_arguments }],
        distractor: true,
      });
    }
  }
  return planned.sort(byId);
}

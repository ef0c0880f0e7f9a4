// Tool arguments written as a template in the reward config, filled per trajectory.
//
// A template is a JSON object. A string value that is exactly `{{path}}` becomes the value at that path
// (any JSON type: `"{{ground_truth.tests}}"` can be a list); a string with `{{path}}` inside other text
// gets the value interpolated (strings, numbers and booleans only). Objects and arrays are walked.
// A path is dot-separated keys (array indices as numbers) from one of four roots:
//   answer, ground_truth, extra_info, task   (e.g. `{{extra_info.db_id}}`, `{{task.id}}`)
// The roots are checked when the config is parsed; a path the task lacks fails at scoring time with
// a RewardConfigError naming the path and the task.
import { RewardConfigError } from "./errors.ts";

export const TEMPLATE_ROOTS = ["answer", "ground_truth", "extra_info", "task"] as const;
export type TemplateRoot = (typeof TEMPLATE_ROOTS)[number];
export type TemplateScope = Record<TemplateRoot, unknown>;

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const WHOLE = /^\{\{\s*([^{}]*?)\s*\}\}$/;
const PATH = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/;

/** Every placeholder path in a template (for config-time checks). */
export function templatePaths(template: unknown): string[] {
  const out: string[] = [];
  walk(template, (s) => {
    for (const m of s.matchAll(PLACEHOLDER)) out.push(m[1] ?? "");
  });
  return out;
}

/** Why a placeholder path is not valid, or undefined when it is. */
export function checkTemplatePath(path: string): string | undefined {
  if (!PATH.test(path)) return `"{{${path}}}" is not a dot-separated path`;
  const root = path.split(".", 1)[0];
  if (!(TEMPLATE_ROOTS as readonly string[]).includes(root ?? "")) {
    return `"{{${path}}}" must start with one of ${TEMPLATE_ROOTS.join(", ")}`;
  }
  return undefined;
}

/** The template with every placeholder filled from `scope`. Throws RewardConfigError on a missing path. */
export function fillTemplate(
  template: Record<string, unknown>,
  scope: TemplateScope,
  where: { component: string; taskId: string },
): Record<string, unknown> {
  const lookup = (path: string): unknown => {
    const value = resolvePath(scope, path);
    if (value === undefined) {
      throw new RewardConfigError(
        where.component,
        "TEMPLATE_PATH_MISSING",
        `argument template: task ${where.taskId} has no value at "${path}"`,
      );
    }
    return value;
  };
  const fill = (node: unknown): unknown => {
    if (typeof node === "string") {
      const whole = WHOLE.exec(node);
      if (whole) return lookup(whole[1] ?? "");
      return node.replace(PLACEHOLDER, (_, path: string) => {
        const value = lookup(path);
        if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
          return String(value);
        }
        throw new RewardConfigError(
          where.component,
          "TEMPLATE_NOT_TEXT",
          `argument template: "{{${path}}}" inside a longer string must be a string, number or boolean (task ${where.taskId})`,
        );
      });
    }
    if (Array.isArray(node)) return node.map(fill);
    if (node !== null && typeof node === "object") {
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, fill(v)]));
    }
    return node;
  };
  return fill(template) as Record<string, unknown>;
}

/** The value at a dot path (own properties only), or undefined. Null counts as missing. */
function resolvePath(scope: TemplateScope, path: string): unknown {
  let node: unknown = scope;
  for (const key of path.split(".")) {
    if (Array.isArray(node)) {
      if (!/^\d+$/.test(key)) return undefined;
      node = node[Number(key)];
    } else if (node !== null && typeof node === "object" && Object.hasOwn(node, key)) {
      node = (node as Record<string, unknown>)[key];
    } else {
      return undefined;
    }
  }
  return node ?? undefined;
}

function walk(node: unknown, onString: (s: string) => void): void {
  if (typeof node === "string") onString(node);
  else if (Array.isArray(node)) for (const v of node) walk(v, onString);
  else if (node !== null && typeof node === "object") for (const v of Object.values(node)) walk(v, onString);
}

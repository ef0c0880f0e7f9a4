// `rlf data ftrl`: FTRL task rows (per-sample, or τ-bench-style) as rollout tasks over a bundle that
// `rlf env import-ftrl` made from them. Each task runs in its own episode of the bundle's server
// (`environment: {server, config: {task: id}}`); the model sees the tools under FTRL's own names
// (`tool_aliases`: name → `<server>__<bundle tool>`).
import { type Task, taskSchema } from "@rlfactory/contracts";
import type { Bundle, BundleTask } from "../bundle/bundle-schema.ts";
import { FtrlFormatError } from "./ftrl-error.ts";
import {
  ftrlAnswer,
  ftrlMessages,
  ftrlRowKind,
  ftrlTaskId,
  jsonField,
  readFtrlActions,
  readFtrlCodes,
  readFtrlRows,
  readFtrlTools,
  readUnsolvedSet,
  sampleToolKey,
} from "./ftrl-rows.ts";

export interface FtrlTasksOptions {
  /** The bundle server's name on the gateway (default `ftrl`). */
  server?: string;
  /** Keep only the rows whose `data_source` is this. */
  dataSource?: string;
  /** A system message put first in every prompt (e.g. τ-bench's wiki.md). */
  system?: string;
}

/** A rollout task as `rlf data ftrl` writes it: a contract Task that always has its environment, tools and aliases. */
export type FtrlTask = Task & Required<Pick<Task, "environment" | "tools" | "tool_aliases">>;

export const DEFAULT_FTRL_SERVER = "ftrl";
const ALIAS = /^[A-Za-z0-9_.-]{1,64}$/;

/** Converts every row of `file` (in file order); a row that is not a task of `bundle` is an error. */
export async function convertFtrlTasks(
  file: string,
  bundle: Bundle,
  options: FtrlTasksOptions = {},
): Promise<FtrlTask[]> {
  const server = options.server ?? DEFAULT_FTRL_SERVER;
  if (!/^[A-Za-z0-9_-]+$/.test(server))
    throw new FtrlFormatError(`bad server name "${server}" (letters, digits, "_", "-")`);
  const byId = new Map(bundle.tasks.map((t) => [t.id, t]));
  const tools = new Map(bundle.tools.map((t) => [t.name, t]));
  const seen = new Set<string>();
  const rows = (await readFtrlRows(file)).filter((r) => {
    if (options.dataSource !== undefined && r.row.data_source !== options.dataSource) return false;
    const id = ftrlTaskId(r.row);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  return rows.map(({ row, where }) => {
    const id = ftrlTaskId(row);
    const task = byId.get(id);
    if (task === undefined)
      throw new FtrlFormatError(
        `${where}: task ${id} is not in bundle ${bundle.name} (import this file into the bundle with rlf env import-ftrl)`,
      );
    const kind = ftrlRowKind(row, where);
    const system = options.system === undefined ? [] : [{ role: "system", content: options.system }];
    const common = {
      id,
      data_source: typeof row.data_source === "string" && row.data_source !== "" ? row.data_source : "ftrl",
      environment: { server, config: { task: id } },
    };
    const info = (extra: Record<string, unknown>) => ({
      bundle: bundle.name,
      bundle_hash: bundle.hash,
      ...extra,
      ...(task.complexity === undefined ? {} : { complexity: task.complexity }),
    });

    if (kind === "instruction") {
      if (bundle.form !== "environment")
        throw new FtrlFormatError(
          `${where}: a τ-bench-style row needs a bundle of form "environment" (${bundle.name} is "${bundle.form}")`,
        );
      const actions = readFtrlActions(row.actions, where);
      const outputs = Array.isArray(row.outputs) ? row.outputs.map(String) : [];
      return checkedTask(where, {
        ...common,
        prompt: [...system, { role: "user", content: row.instruction as string }],
        ground_truth: actions,
        extra_info: info({ outputs }),
        tools: [...task.tools],
        tool_aliases: aliases(
          task.tools.map((t) => [t, t]),
          server,
          where,
        ),
      });
    }

    // Per-sample: the row's own tool names, each matched to the bundle tool with its schema and code.
    const rowTools = readFtrlTools(jsonField(row, "tools", where), where);
    const codes = readFtrlCodes(jsonField(row, "codes", where), rowTools, where);
    const pairs: [string, string][] = rowTools.map((t) => {
      const key = sampleToolKey(t, codes[t.name] as string);
      const plain = tools.get(t.name);
      const target =
        plain !== undefined && sampleToolKey(plain, bundle.code[t.name] as string) === key
          ? t.name
          : tools.has(`${t.name}_${key.slice(0, 8)}`)
            ? `${t.name}_${key.slice(0, 8)}`
            : undefined;
      if (target === undefined)
        throw new FtrlFormatError(
          `${where}: tool ${t.name} (its schema and code) is not in bundle ${bundle.name}`,
        );
      return [t.name, target];
    });
    checkSameTools(task, pairs, where);
    const unsolved = readUnsolvedSet(row, new Set(rowTools.map((t) => t.name)), where);
    const answer = ftrlAnswer(row, where);
    const messages = ftrlMessages(row, where);
    return checkedTask(where, {
      ...common,
      prompt: messages[0]?.role === "system" ? messages : [...system, ...messages],
      ...(answer === undefined ? {} : { ground_truth: answer }),
      extra_info: info({
        ...(unsolved === undefined ? {} : { unsolved_set: unsolved }),
        ...(typeof row.solve_rate === "number" ? { solve_rate: row.solve_rate } : {}),
      }),
      tools: pairs.map(([alias]) => alias),
      tool_aliases: aliases(pairs, server, where),
    });
  });
}

/** The converted row as the contract's Task (a message role it does not know, say), or an error naming the row. */
function checkedTask(where: string, task: Record<string, unknown>): FtrlTask {
  const parsed = taskSchema.safeParse(task);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new FtrlFormatError(`${where}: not a rollout task: ${issue?.path.join(".")}: ${issue?.message}`);
  }
  return parsed.data as FtrlTask;
}

function checkSameTools(task: BundleTask, pairs: [string, string][], where: string): void {
  const mine = pairs.map(([, t]) => t).sort();
  const theirs = [...task.tools].sort();
  if (JSON.stringify(mine) !== JSON.stringify(theirs))
    throw new FtrlFormatError(
      `${where}: the row's tools differ from bundle task ${task.id}'s (${theirs.join(", ")})`,
    );
}

function aliases(pairs: [string, string][], server: string, where: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [alias, tool] of pairs) {
    if (!ALIAS.test(alias))
      throw new FtrlFormatError(`${where}: tool name ${alias} is longer than 64 characters`);
    out[alias] = `${server}__${tool}`;
  }
  return out;
}

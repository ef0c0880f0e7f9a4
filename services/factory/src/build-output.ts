// The end of a build: the tasks whose every tool passed validation become the bundle (form "sample",
// source.kind "rlf-env-build"; services/environments/README.md), with the validation report as
// validation.json (each task's ground-truth calls as its `actions`); the task file (rollout tasks, one
// per bundle task, with those calls turn by turn in `extra_info.actions`); and the summary (items per
// stage, rejects by reason, tokens). Everything is ordered by id and holds no time or absolute path,
// so a resumed build writes the same bytes as an uninterrupted one.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type BundleAction, type BundleTask, type BundleTool, writeBundle } from "@rlfactory/environments";
import type { BuildConfig } from "./build-config.ts";
import type { PlannedTool, StageCount, ValidationValue } from "./build-types.ts";
import type { TokenUsage } from "./chat-client.ts";
import { bundleTaskToRolloutTask } from "./rollout-tasks.ts";
import { type Decomposition, parameterTypes } from "./stage-shapes.ts";
import type { StageRecord } from "./stage-store.ts";

export interface ValidatedTool {
  plan: PlannedTool;
  deploy: StageRecord<{ code: string }> | undefined;
  validation: StageRecord<ValidationValue> | undefined;
}

export interface ToolReport {
  name: string;
  task: string;
  distractor: boolean;
  status: "passed" | "repaired" | "dropped";
  reason?: string;
  detail?: string;
  denials: { network: number; file: number; process: number };
}

export interface ValidationReport {
  checked: number;
  passed: number;
  repaired: number;
  dropped: number;
  /** Dropped tools by the reason of their last failure. */
  dropped_by_reason: Record<string, number>;
  /** Failures a repair fixed, by reason. */
  repaired_by_reason: Record<string, number>;
  /** Network, file and process attempts the sandbox denied, over every check. */
  denials: { network: number; file: number; process: number };
  near_duplicates: { task: string; of: string; similarity: number }[];
  tools: ToolReport[];
}

export interface BuildSummary {
  name: string;
  model: string;
  bundle: { dir: string; hash: string; tools: number; tasks: number };
  task_file: string;
  stages: Record<string, StageCount>;
  tokens: { prompt: number; completion: number; total: number; requests: number };
  validation: Omit<ValidationReport, "tools" | "near_duplicates">;
}

export interface BuildOutput {
  bundleDir: string;
  taskFile: string;
  summary: BuildSummary;
  report: ValidationReport;
}

export interface AssembleInput {
  config: BuildConfig;
  outDir: string;
  tasks: { id: string; question: string; decomposition: Decomposition }[];
  tools: ValidatedTool[];
  duplicates: Map<string, { of: string; similarity: number }>;
  stageCounts: Record<string, StageCount>;
  tokens: TokenUsage;
}

const sortedCounts = (counts: Record<string, number>) => Object.fromEntries(Object.entries(counts).sort());

function toolReport(tool: ValidatedTool): ToolReport {
  const { plan, deploy, validation } = tool;
  const base = { name: plan.name, task: plan.task, distractor: plan.distractor };
  const none = { network: 0, file: 0, process: 0 };
  if (deploy === undefined || !deploy.ok)
    return {
      ...base,
      status: "dropped",
      reason: "not_deployed",
      detail: deploy?.ok === false ? deploy.detail : "",
      denials: none,
    };
  if (validation === undefined)
    return { ...base, status: "dropped", reason: "not_validated", detail: "", denials: none };
  if (!validation.ok) {
    const denials = (validation.data?.denials as ToolReport["denials"] | undefined) ?? none;
    return { ...base, status: "dropped", reason: validation.reason, detail: validation.detail, denials };
  }
  const v = validation.value;
  return {
    ...base,
    status: v.repaired ? "repaired" : "passed",
    ...(v.first_failure ? { reason: v.first_failure.reason, detail: v.first_failure.detail } : {}),
    denials: v.denials,
  };
}

/**
 * A task's ground-truth calls turn by turn: turn H holds the call answering hop H of every branch (in
 * branch order), so the calls of one turn are independent and a later hop comes a turn later.
 */
export function actionTurns(core: PlannedTool[]): BundleAction[][] {
  const calls = core.flatMap((tool) =>
    tool.calls.map((c) => {
      const [branch = 0, hop = 0] = (c.sub ?? "0.0").split(".").map(Number);
      return { branch, hop, action: { name: tool.name, arguments: c.arguments } };
    }),
  );
  const turns: BundleAction[][] = [];
  for (const c of calls.sort((a, b) => a.hop - b.hop || a.branch - b.branch)) {
    while (turns.length < c.hop) turns.push([]);
    turns[c.hop - 1]?.push(c.action);
  }
  return turns.filter((t) => t.length > 0);
}

export async function assembleOutput(input: AssembleInput): Promise<BuildOutput> {
  const { config } = input;
  const reports = input.tools.map(toolReport);
  const passed = new Map<string, ValidatedTool>();
  for (const [i, tool] of input.tools.entries())
    if (reports[i]?.status !== "dropped") passed.set(tool.plan.id, tool);

  // Tasks: kept when every core tool passed; a failed distractor only leaves the task's tool list.
  const bundleTasks: BundleTask[] = [];
  const bundleTools: BundleTool[] = [];
  const code: Record<string, string> = {};
  const assemble: StageCount = { items: 0, ok: 0, rejected: {} };
  const actionsByTask = new Map<string, BundleAction[][]>();
  for (const task of [...input.tasks].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    assemble.items++;
    const own = input.tools.filter((t) => t.plan.task === task.id);
    const core = own.filter((t) => !t.plan.distractor);
    if (core.length === 0 || core.some((t) => !passed.has(t.plan.id))) {
      assemble.rejected.tool_failed = (assemble.rejected.tool_failed ?? 0) + 1;
      continue;
    }
    assemble.ok++;
    const offered = own.filter((t) => passed.has(t.plan.id));
    for (const t of offered) {
      bundleTools.push({ name: t.plan.name, description: t.plan.description, parameters: t.plan.parameters });
      const v = t.validation as Extract<StageRecord<ValidationValue>, { ok: true }>;
      code[t.plan.name] = v.value.code;
    }
    const unsolved: Record<string, string[]> = {};
    for (const t of core) unsolved[t.plan.name] = t.plan.calls.map((c) => c.answer as string);
    const d = task.decomposition;
    const turns = actionTurns(core.map((t) => t.plan));
    actionsByTask.set(task.id, turns);
    bundleTasks.push({
      id: task.id,
      tools: offered.map((t) => t.plan.name).sort(),
      question: task.question,
      unsolved_set: unsolved,
      answer: d.answer,
      actions: turns.flat(),
      complexity: {
        structure: d.structure,
        hops: Math.max(...d.branches.map((b) => b.length)),
        parallel: d.branches.length,
        tools: core.length,
        distractors: offered.length - core.length,
        parameter_types: parameterTypes(offered.map((t) => t.plan)),
      },
    });
  }

  const count = (status: ToolReport["status"]) => reports.filter((r) => r.status === status).length;
  const byReason = (status: ToolReport["status"]) => {
    const out: Record<string, number> = {};
    for (const r of reports) if (r.status === status && r.reason) out[r.reason] = (out[r.reason] ?? 0) + 1;
    return sortedCounts(out);
  };
  const denials = { network: 0, file: 0, process: 0 };
  for (const r of reports)
    for (const k of ["network", "file", "process"] as const) denials[k] += r.denials[k];
  const report: ValidationReport = {
    checked: reports.filter((r) => r.reason !== "not_deployed").length,
    passed: count("passed"),
    repaired: count("repaired"),
    dropped: count("dropped"),
    dropped_by_reason: byReason("dropped"),
    repaired_by_reason: byReason("repaired"),
    denials,
    near_duplicates: [...input.duplicates.entries()]
      .map(([task, d]) => ({ task, of: d.of, similarity: d.similarity }))
      .sort((a, b) => (a.task < b.task ? -1 : 1)),
    tools: reports,
  };

  const bundleDir = join(input.outDir, "bundle");
  // The build's own folder: whatever a killed run left half-written there is replaced whole.
  rmSync(bundleDir, { recursive: true, force: true });
  const manifest = await writeBundle(bundleDir, {
    name: config.name,
    form: "sample",
    source: { ...config.output.source, kind: "rlf-env-build", model: config.endpoint.model },
    tools: bundleTools,
    code,
    tasks: bundleTasks,
    validation: report,
  });

  const server = config.output.server ?? config.name;
  const taskFile = join(input.outDir, "tasks.jsonl");
  writeFileSync(
    taskFile,
    bundleTasks
      .map((t) => {
        const row = bundleTaskToRolloutTask(t, {
          server,
          dataSource: config.name,
          bundle: { name: config.name, hash: manifest.hash },
          actionTurns: actionsByTask.get(t.id) ?? [],
        });
        return `${JSON.stringify(row)}\n`;
      })
      .join(""),
  );

  const { tools: _tools, near_duplicates: _dups, ...validation } = report;
  const summary: BuildSummary = {
    name: config.name,
    model: config.endpoint.model,
    bundle: { dir: "bundle", hash: manifest.hash, tools: bundleTools.length, tasks: bundleTasks.length },
    task_file: "tasks.jsonl",
    stages: { ...input.stageCounts, assemble: { ...assemble, rejected: sortedCounts(assemble.rejected) } },
    tokens: {
      prompt: input.tokens.prompt_tokens,
      completion: input.tokens.completion_tokens,
      total: input.tokens.prompt_tokens + input.tokens.completion_tokens,
      requests: input.tokens.requests,
    },
    validation,
  };
  writeFileSync(join(input.outDir, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
  return { bundleDir, taskFile, summary, report };
}

/** The summary as text (what `rlf env build` prints at the end). */
export function formatBuildSummary(s: BuildSummary): string {
  const lines = [`rlf env build ${s.name} (model ${s.model})`, "stage        items     ok  rejected"];
  for (const [stage, c] of Object.entries(s.stages)) {
    const rejected = Object.entries(c.rejected)
      .map(([reason, n]) => `${reason} ${n}`)
      .join(", ");
    lines.push(
      `${stage.padEnd(12)} ${String(c.items).padStart(5)} ${String(c.ok).padStart(6)}  ${rejected || "-"}`,
    );
  }
  const v = s.validation;
  lines.push(
    `validation: ${v.checked} tools checked, ${v.passed} passed, ${v.repaired} repaired, ${v.dropped} dropped` +
      (Object.keys(v.dropped_by_reason).length
        ? ` (${Object.entries(v.dropped_by_reason)
            .map(([r, n]) => `${r} ${n}`)
            .join(", ")})`
        : ""),
    `sandbox denials: network ${v.denials.network}, file ${v.denials.file}, process ${v.denials.process}`,
    `tokens: ${s.tokens.prompt} prompt + ${s.tokens.completion} completion = ${s.tokens.total} in ${s.tokens.requests} requests`,
    `bundle: ${s.bundle.dir} (${s.bundle.tasks} tasks, ${s.bundle.tools} tools) ${s.bundle.hash}`,
    `task file: ${s.task_file}`,
  );
  return `${lines.join("\n")}\n`;
}

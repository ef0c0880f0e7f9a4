// `rlf env build`: seed questions → (1) scenario decomposition → near-duplicate removal → (2) one
// tool document per sub-question → (3) function integration → (4) complexity scaling → (5) localized
// deployment (Python code per tool) → validation in the sandbox (one repair) → the bundle, the task
// file, the validation report and the summary. Every stage keeps its records in DIR/stages/*.jsonl:
// a rerun skips what is there, so a killed build resumes and ends with the same bundle.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import pLimit from "p-limit";
import type { z } from "zod";
import { type BuildConfig, BuildConfigError } from "./build-config.ts";
import { assembleOutput, type BuildOutput, type ValidatedTool } from "./build-output.ts";
import type { PlannedTool, StageCount, ValidationValue } from "./build-types.ts";
import { addUsage, ChatClient, MalformedReplyError, NO_USAGE, type TokenUsage } from "./chat-client.ts";
import { nearDuplicates } from "./near-duplicates.ts";
import { loadSeeds, type Seed } from "./seeds.ts";
import { STAGE_PROMPTS, type StageName } from "./stage-prompts.ts";
import {
  codeSchema,
  coverageProblem,
  type Decomposition,
  type Documents,
  decompositionSchema,
  documentsSchema,
  type Integration,
  integrationSchema,
  type Scaling,
  type SubQuestion,
  scalingSchema,
  structureMismatch,
  subQuestions,
  type TaskTool,
} from "./stage-shapes.ts";
import { type StageRecord, StageStore } from "./stage-store.ts";
import { planTools } from "./tool-plan.ts";
import { schemaProblem, ToolValidator } from "./tool-validator.ts";

/** The stages, in order, with their artifact files. */
export const STAGES = [
  ["seeds", "00-seeds.jsonl"],
  ["decompose", "01-decompose.jsonl"],
  ["deduplicate", "02-deduplicate.jsonl"],
  ["document", "03-document.jsonl"],
  ["integrate", "04-integrate.jsonl"],
  ["scale", "05-scale.jsonl"],
  ["deploy", "06-deploy.jsonl"],
  ["validate", "07-validate.jsonl"],
] as const;
export type Stage = (typeof STAGES)[number][0];

/** How a caller watches the build (the CLI draws a progress bar per stage). */
export interface BuildProgress {
  stageStarted(stage: Stage, total: number, alreadyDone: number): void;
  itemDone(stage: Stage): void;
  stageFinished(stage: Stage): void;
}

interface TaskInput {
  id: string;
  question: string;
  decomposition: Decomposition;
  subs: SubQuestion[];
}

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export class BuildPipeline {
  private readonly client: ChatClient;
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly stagesDir: string;
  readonly config: BuildConfig;
  readonly outDir: string;
  private readonly progress: BuildProgress | undefined;

  constructor(config: BuildConfig, outDir: string, progress?: BuildProgress) {
    this.config = config;
    this.outDir = outDir;
    this.progress = progress;
    this.client = new ChatClient(config);
    this.limit = pLimit(config.concurrency);
    this.stagesDir = join(outDir, "stages");
  }

  private store<T>(stage: Stage): StageStore<T> {
    const file = STAGES.find(([s]) => s === stage)?.[1] as string;
    return new StageStore<T>(join(this.stagesDir, file));
  }

  /** Runs `work` for every item not in the stage's file yet, `concurrency` at a time. */
  private async stage<I extends { id: string }, T>(
    stage: Stage,
    items: I[],
    work: (item: I) => Promise<StageRecord<T>>,
  ): Promise<StageStore<T>> {
    const store = this.store<T>(stage);
    const pending = [...items].sort(byId).filter((i) => !store.has(i.id));
    this.progress?.stageStarted(stage, items.length, items.length - pending.length);
    try {
      await Promise.all(
        pending.map((item) =>
          this.limit(async () => {
            store.put(await work(item));
            this.progress?.itemDone(stage);
          }),
        ),
      );
    } catch (err) {
      // The endpoint failed for good: start nothing more (a rerun resumes from the records).
      this.limit.clearQueue();
      throw err;
    }
    store.seal();
    this.progress?.stageFinished(stage);
    return store;
  }

  /** One model call of a stage; a reply that never parses (or fails `check`) is the item's rejection. */
  private async ask<T>(
    stage: StageName,
    id: string,
    input: unknown,
    schema: z.ZodType<T>,
    check?: (value: T) => string | undefined,
  ): Promise<StageRecord<T>> {
    const checked = check
      ? (schema.superRefine((value, ctx) => {
          const problem = check(value as T);
          if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
        }) as unknown as z.ZodType<T>)
      : schema;
    try {
      const { value, usage } = await this.client.json({
        system: STAGE_PROMPTS[stage],
        input,
        schema: checked,
        key: `${stage}:${id}`,
      });
      return { id, ok: true, value, usage };
    } catch (err) {
      if (!(err instanceof MalformedReplyError)) throw err;
      return { id, ok: false, reason: "malformed_reply", detail: err.message, usage: err.usage };
    }
  }

  async run(): Promise<BuildOutput> {
    const { config } = this;
    mkdirSync(this.stagesDir, { recursive: true });

    // Seeds: recorded for inspection (no model call).
    const seeds = await loadSeeds(config);
    const unique = [...new Map(seeds.map((s) => [s.id, s])).values()];
    await this.stage<Seed, Seed>("seeds", unique, async (s) => ({ id: s.id, ok: true, value: s }));

    // (1) Scenario decomposition.
    const allowed = new Set<string>(config.structures);
    const decomposed = await this.stage<Seed, Decomposition>("decompose", unique, (seed) =>
      this.ask(
        "decompose",
        seed.id,
        {
          ...(seed.question !== undefined ? { question: seed.question } : {}),
          ...(seed.answer !== undefined ? { answer: seed.answer } : {}),
          ...(seed.scenario !== undefined ? { scenario: seed.scenario } : {}),
          ...(seed.variant !== undefined
            ? { question_number: seed.variant.index, questions: seed.variant.of }
            : {}),
          structures: config.structures,
          max_sub_questions: config.counts.max_sub_questions,
        },
        decompositionSchema,
        (d) => {
          if (!allowed.has(d.structure))
            return `structure ${d.structure} is not among the allowed ${config.structures.join(", ")}`;
          const count = d.branches.flat().length;
          if (count > config.counts.max_sub_questions)
            return `${count} sub-questions, more than max_sub_questions (${config.counts.max_sub_questions})`;
          return structureMismatch(d.structure, d.branches);
        },
      ),
    );
    const tasks: TaskInput[] = decomposed
      .all()
      .flatMap((r) =>
        r.ok
          ? [{ id: r.id, question: r.value.question, decomposition: r.value, subs: subQuestions(r.value) }]
          : [],
      );

    // Near-duplicate tasks are removed (the smallest id of each group stays).
    const duplicates = nearDuplicates(
      tasks.map((t) => ({ id: t.id, text: t.question })),
      config.validation.duplicate_threshold,
    );
    const dedup = await this.stage<TaskInput, { kept: true }>("deduplicate", tasks, async (t) => {
      const dup = duplicates.get(t.id);
      return dup
        ? {
            id: t.id,
            ok: false,
            reason: "near_duplicate",
            detail: `similarity ${dup.similarity} to task ${dup.of}`,
          }
        : { id: t.id, ok: true, value: { kept: true } };
    });
    const distinct = tasks.filter((t) => dedup.get(t.id)?.ok === true);

    // (2) Document generation: one tool document per sub-question.
    const documented = await this.stage<TaskInput, Documents>("document", distinct, (t) =>
      this.ask("document", t.id, { question: t.question, sub_questions: t.subs }, documentsSchema, (d) => {
        const calls = d.documents.map((doc) => ({
          name: doc.name,
          calls: [{ sub: doc.sub, arguments: doc.arguments }],
        }));
        const keys = d.documents.map((doc) => doc.sub);
        if (new Set(keys).size !== keys.length || keys.length !== t.subs.length)
          return `write exactly one document per sub-question (${t.subs.map((s) => s.key).join(", ")})`;
        const uncovered = coverageProblem(
          calls.map((c, i) => ({ ...c, name: `${c.name}_${i}` })),
          t.subs,
        );
        if (uncovered) return uncovered;
        for (const doc of d.documents) {
          const problem = schemaProblem({
            name: doc.name,
            parameters: doc.parameters,
            calls: [{ arguments: doc.arguments }],
          });
          if (problem) return `document for ${doc.sub}: ${problem}`;
        }
        return undefined;
      }),
    );

    // (3) Function integration: overlapping documents merged into one tool.
    const toolsetCheck =
      (subs: SubQuestion[]) =>
      (tools: { name: string; parameters: TaskTool["parameters"]; calls: TaskTool["calls"] }[]) => {
        const coverage = coverageProblem(tools, subs);
        if (coverage) return coverage;
        for (const tool of tools) {
          const problem = schemaProblem(tool);
          if (problem) return `tool ${tool.name}: ${problem}`;
        }
        return undefined;
      };
    const withDocs = distinct.flatMap((t) => {
      const r = documented.get(t.id);
      return r?.ok ? [{ ...t, documents: r.value.documents }] : [];
    });
    const integrated = await this.stage<(typeof withDocs)[number], Integration>(
      "integrate",
      withDocs,
      async (t) => {
        if (t.documents.length === 1) {
          const [doc] = t.documents as [Documents["documents"][number]];
          const tool = {
            name: doc.name,
            description: doc.description,
            parameters: doc.parameters,
            calls: [{ sub: doc.sub, arguments: doc.arguments }],
          };
          return { id: t.id, ok: true, value: { tools: [tool] }, usage: NO_USAGE };
        }
        return this.ask(
          "integrate",
          t.id,
          { question: t.question, sub_questions: t.subs, documents: t.documents },
          integrationSchema,
          (v) => toolsetCheck(t.subs)(v.tools),
        );
      },
    );

    // (4) Complexity scaling.
    const { strategies, distractors } = config.scaling;
    const withTools = distinct.flatMap((t) => {
      const r = integrated.get(t.id);
      return r?.ok ? [{ ...t, tools: r.value.tools }] : [];
    });
    const scaled = await this.stage<(typeof withTools)[number], Scaling>("scale", withTools, async (t) => {
      if (strategies.length === 0)
        return { id: t.id, ok: true, value: { tools: t.tools, distractors: [] }, usage: NO_USAGE };
      const wantDistractors = strategies.includes("toolset_extension") ? distractors : 0;
      return this.ask(
        "scale",
        t.id,
        {
          question: t.question,
          sub_questions: t.subs,
          tools: t.tools,
          strategies,
          distractors: wantDistractors,
        },
        scalingSchema,
        (v) => {
          const problem = toolsetCheck(t.subs)(v.tools);
          if (problem) return problem;
          if (v.distractors.length !== wantDistractors)
            return `write exactly ${wantDistractors} distractor tools (got ${v.distractors.length})`;
          const names = [...v.tools, ...v.distractors].map((x) => x.name);
          const clash = names.find((n, i) => names.indexOf(n) !== i);
          if (clash) return `two tools are named ${clash}`;
          for (const d of v.distractors) {
            const p = schemaProblem({
              name: d.name,
              parameters: d.parameters,
              calls: [{ arguments: d.example_arguments }],
            });
            if (p) return `distractor ${d.name}: ${p}`;
          }
          return undefined;
        },
      );
    });

    // Bundle-wide tool names: a name used by two tasks gets the task's id as a suffix.
    const scaledTasks = withTools.flatMap((t) => {
      const r = scaled.get(t.id);
      return r?.ok ? [{ ...t, scaled: r.value }] : [];
    });
    const planned = planTools(scaledTasks);

    // (5) Localized deployment: each tool (with its sub-questions' answers) as Python code.
    const deployed = await this.stage<PlannedTool, { code: string }>("deploy", planned, (tool) =>
      this.ask("deploy", tool.id, deployInput(tool), codeSchema),
    );

    // Validation in the sandbox; a failing tool is repaired once, then dropped with its reason.
    const toValidate = planned.filter((p) => deployed.get(p.id)?.ok === true);
    const validateStore = this.store<ValidationValue>("validate");
    const needsSandbox = toValidate.some((p) => !validateStore.has(p.id));
    const validator = needsSandbox
      ? await ToolValidator.start({
          timeoutMs: config.validation.timeout_ms,
          memoryMb: config.validation.memory_mb,
          workers: Math.min(config.concurrency, availableParallelism()),
        })
      : undefined;
    let validated: StageStore<ValidationValue>;
    try {
      validated = await this.stage<PlannedTool, ValidationValue>("validate", toValidate, async (tool) => {
        const record = deployed.get(tool.id) as Extract<StageRecord<{ code: string }>, { ok: true }>;
        return this.validate(validator as ToolValidator, tool, record.value.code);
      });
    } finally {
      await validator?.stop();
    }

    const stores = {
      seeds: unique.length,
      decomposed,
      dedup,
      documented,
      integrated,
      scaled,
      deployed,
      validated,
    };
    const tools: ValidatedTool[] = planned.map((p) => {
      const v = validated.get(p.id);
      const d = deployed.get(p.id);
      return { plan: p, deploy: d, validation: v };
    });
    return assembleOutput({
      config,
      outDir: this.outDir,
      tasks: scaledTasks.map((t) => ({ id: t.id, question: t.question, decomposition: t.decomposition })),
      tools,
      duplicates,
      stageCounts: stageCounts(stores),
      tokens: totalUsage([decomposed, documented, integrated, scaled, deployed, validated]),
    });
  }

  private async validate(
    validator: ToolValidator,
    tool: PlannedTool,
    code: string,
  ): Promise<StageRecord<ValidationValue>> {
    const subject = { name: tool.name, parameters: tool.parameters, code, calls: tool.calls };
    const first = await validator.check(subject);
    if (first.ok)
      return {
        id: tool.id,
        ok: true,
        value: { code, repaired: false, denials: first.denials },
        usage: NO_USAGE,
      };
    if (first.reason === "schema")
      return {
        id: tool.id,
        ok: false,
        reason: first.reason,
        detail: first.detail,
        usage: NO_USAGE,
        data: { denials: first.denials },
      };
    const repair = await this.ask(
      "repair",
      tool.id,
      { ...deployInput(tool), code, failure: { reason: first.reason, detail: first.detail } },
      codeSchema,
    );
    const usage = repair.usage ?? NO_USAGE;
    const before = `${first.reason}: ${first.detail}`;
    if (!repair.ok)
      return {
        id: tool.id,
        ok: false,
        reason: first.reason,
        detail: `${before}; the repair failed: ${repair.detail}`,
        usage,
        data: { denials: first.denials },
      };
    const second = await validator.check({ ...subject, code: repair.value.code });
    if (!second.ok)
      return {
        id: tool.id,
        ok: false,
        reason: second.reason,
        detail: `${second.detail} (after a repair of: ${before})`,
        usage,
        data: { denials: addDenials(first.denials, second.denials) },
      };
    return {
      id: tool.id,
      ok: true,
      value: {
        code: repair.value.code,
        repaired: true,
        denials: addDenials(first.denials, second.denials),
        first_failure: { reason: first.reason, detail: first.detail },
      },
      usage,
    };
  }
}

function addDenials(
  a: ValidationValue["denials"],
  b: ValidationValue["denials"],
): ValidationValue["denials"] {
  return { network: a.network + b.network, file: a.file + b.file, process: a.process + b.process };
}

function deployInput(tool: PlannedTool) {
  return {
    tool: { name: tool.name, description: tool.description, parameters: tool.parameters },
    calls: tool.calls.map((c) => ({
      ...(c.question !== undefined ? { question: c.question } : {}),
      arguments: c.arguments,
      ...(c.answer !== undefined ? { answer: c.answer } : {}),
    })),
    distractor: tool.distractor,
  };
}

function countOf(store: StageStore<unknown>): StageCount {
  const rejected: Record<string, number> = {};
  let ok = 0;
  const all = store.all();
  for (const r of all) {
    if (r.ok) ok++;
    else rejected[r.reason] = (rejected[r.reason] ?? 0) + 1;
  }
  return { items: all.length, ok, rejected: Object.fromEntries(Object.entries(rejected).sort()) };
}

function stageCounts(s: {
  seeds: number;
  decomposed: StageStore<unknown>;
  dedup: StageStore<unknown>;
  documented: StageStore<unknown>;
  integrated: StageStore<unknown>;
  scaled: StageStore<unknown>;
  deployed: StageStore<unknown>;
  validated: StageStore<unknown>;
}): Record<string, StageCount> {
  return {
    seeds: { items: s.seeds, ok: s.seeds, rejected: {} },
    decompose: countOf(s.decomposed),
    deduplicate: countOf(s.dedup),
    document: countOf(s.documented),
    integrate: countOf(s.integrated),
    scale: countOf(s.scaled),
    deploy: countOf(s.deployed),
    validate: countOf(s.validated),
  };
}

function totalUsage(stores: StageStore<unknown>[]): TokenUsage {
  let usage = NO_USAGE;
  for (const store of stores) for (const r of store.all()) if (r.usage) usage = addUsage(usage, r.usage);
  return usage;
}

/**
 * What decides a build's records: the config without the keys that only change how it runs (the
 * endpoint's address, key, deadline and retries; concurrency). Records made under another fingerprint
 * are never mixed into a build.
 */
export function buildFingerprint(config: BuildConfig): string {
  const {
    base_url: _url,
    api_key_env: _key,
    timeout_ms: _deadline,
    http_retries: _retries,
    ...endpoint
  } = config.endpoint;
  const { concurrency: _concurrency, ...rest } = config;
  return `sha256:${createHash("sha256")
    .update(JSON.stringify({ ...rest, endpoint }))
    .digest("hex")}`;
}

/**
 * Runs a build, resuming from DIR/stages when it holds a previous run's records. DIR/build.json names
 * the config the records were made with; a different one is refused (BuildConfigError).
 */
export async function runBuild(
  config: BuildConfig,
  outDir: string,
  progress?: BuildProgress,
): Promise<BuildOutput> {
  mkdirSync(outDir, { recursive: true });
  const fingerprint = buildFingerprint(config);
  const marker = join(outDir, "build.json");
  if (existsSync(marker)) {
    const previous = (JSON.parse(readFileSync(marker, "utf8")) as { fingerprint?: string }).fingerprint;
    if (previous !== fingerprint)
      throw new BuildConfigError(
        `${outDir} holds the records of a build with another config (${previous} ≠ ${fingerprint}): give a new --out, or remove ${outDir} to start over`,
      );
  }
  writeFileSync(marker, `${JSON.stringify({ fingerprint, config }, null, 2)}\n`);
  return new BuildPipeline(config, outDir, progress).run();
}

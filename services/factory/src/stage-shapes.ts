// The shape of each stage's model reply (zod), and the checks a parsed reply must pass beyond its
// shape (a decomposition matches its structure, every sub-question is covered by exactly one tool).
import { z } from "zod";
import { STRUCTURES, type Structure } from "./build-config.ts";

export const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const toolName = z.string().regex(TOOL_NAME, "a tool name is a Python identifier of at most 64 characters");

/** A tool's parameters: a JSON Schema object. */
export const parametersSchema = z.looseObject({
  type: z.literal("object"),
  properties: z.record(z.string(), z.record(z.string(), z.unknown())),
  required: z.array(z.string()).optional(),
});
export type Parameters = z.infer<typeof parametersSchema>;

const argumentsSchema = z.record(z.string(), z.unknown());

export const subQuestionSchema = z.strictObject({ question: z.string().min(1), answer: z.string().min(1) });

/** Stage 1: the question (written by the model for a scenario), its answer and its decomposition. */
export const decompositionSchema = z.strictObject({
  question: z.string().min(1),
  answer: z.string().min(1),
  structure: z.enum(STRUCTURES),
  /** Independent branches, each a chain of hops (a later hop may use the earlier answers). */
  branches: z.array(z.array(subQuestionSchema).min(1)).min(1),
});
export type Decomposition = z.infer<typeof decompositionSchema>;

export interface SubQuestion {
  /** `B.H`: branch B, hop H (1-based). */
  key: string;
  question: string;
  answer: string;
}

export function subQuestions(d: Pick<Decomposition, "branches">): SubQuestion[] {
  return d.branches.flatMap((chain, b) => chain.map((s, h) => ({ key: `${b + 1}.${h + 1}`, ...s })));
}

/** Why a decomposition does not have its declared structure, or undefined when it does. */
export function structureMismatch(structure: Structure, branches: unknown[][]): string | undefined {
  const parallel = branches.length;
  const hops = Math.max(...branches.map((b) => b.length));
  const want: Record<Structure, [boolean, string]> = {
    single_hop: [parallel === 1 && hops === 1, "one branch of one hop"],
    parallel_single_hop: [parallel >= 2 && hops === 1, "two or more branches of one hop each"],
    multi_hop: [parallel === 1 && hops >= 2, "one branch of two or more hops"],
    parallel_multi_hop: [parallel >= 2 && hops >= 2, "two or more branches, one of two or more hops"],
  };
  const [ok, text] = want[structure];
  return ok
    ? undefined
    : `a ${structure} decomposition has ${text}; this one has ${parallel} branches of at most ${hops} hops`;
}

/** Stage 2: one tool document per sub-question, with the call that answers it. */
export const documentsSchema = z.strictObject({
  documents: z
    .array(
      z.strictObject({
        sub: z.string(),
        name: toolName,
        description: z.string().min(1),
        parameters: parametersSchema,
        arguments: argumentsSchema,
      }),
    )
    .min(1),
});
export type Documents = z.infer<typeof documentsSchema>;

/** A tool of a task: its document and the calls (one per sub-question it answers). */
export const taskToolSchema = z.strictObject({
  name: toolName,
  description: z.string().min(1),
  parameters: parametersSchema,
  calls: z.array(z.strictObject({ sub: z.string(), arguments: argumentsSchema })).min(1),
});
export type TaskTool = z.infer<typeof taskToolSchema>;

/** Stage 3: the documents merged into tools (overlapping functionality becomes one tool). */
export const integrationSchema = z.strictObject({ tools: z.array(taskToolSchema).min(1) });
export type Integration = z.infer<typeof integrationSchema>;

export const distractorSchema = z.strictObject({
  name: toolName,
  description: z.string().min(1),
  parameters: parametersSchema,
  /** A call of the distractor, used to validate it. */
  example_arguments: argumentsSchema,
});
export type Distractor = z.infer<typeof distractorSchema>;

/** Stage 4: the scaled toolset and the distractor tools. */
export const scalingSchema = z.strictObject({
  tools: z.array(taskToolSchema).min(1),
  distractors: z.array(distractorSchema).default([]),
});
export type Scaling = z.infer<typeof scalingSchema>;

/** Stage 5 (and the repair of a failing tool): the tool's Python source. */
export const codeSchema = z.strictObject({ code: z.string().min(1) });

/** Why a toolset does not cover the sub-questions exactly once each (or has clashing names). */
export function coverageProblem(
  tools: Pick<TaskTool, "name" | "calls">[],
  subs: SubQuestion[],
): string | undefined {
  const names = tools.map((t) => t.name);
  const clash = names.find((n, i) => names.indexOf(n) !== i);
  if (clash !== undefined) return `two tools are named ${clash}`;
  const covered = tools.flatMap((t) => t.calls.map((c) => c.sub));
  for (const s of subs) {
    const n = covered.filter((k) => k === s.key).length;
    if (n !== 1) return `sub-question ${s.key} is answered by ${n} calls (want exactly 1)`;
  }
  const unknown = covered.find((k) => !subs.some((s) => s.key === k));
  return unknown === undefined ? undefined : `no sub-question ${unknown}`;
}

/** The JSON Schema `type` names a toolset uses (for the complexity grade). */
export function parameterTypes(tools: { parameters: Parameters }[]): string[] {
  const types = new Set<string>();
  for (const t of tools)
    for (const p of Object.values(t.parameters.properties)) {
      const type = p.type;
      if (typeof type === "string") types.add(type);
      else if (Array.isArray(type)) {
        for (const x of type) if (typeof x === "string") types.add(x);
      } else types.add("any");
    }
  return [...types].sort();
}

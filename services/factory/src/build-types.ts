// The records shared by the pipeline's stages and its output.
import type { TaskTool } from "./stage-shapes.ts";

/** A tool of a scaled task, under its bundle-wide name, ready to deploy. */
export interface PlannedTool {
  /** `<task id>.<tool name>`. */
  id: string;
  task: string;
  name: string;
  description: string;
  parameters: TaskTool["parameters"];
  /** The calls validation makes: with its sub-question's answer (core tools), or an example (distractors). */
  calls: { sub?: string; question?: string; arguments: Record<string, unknown>; answer?: string }[];
  distractor: boolean;
}

/** A tool that passed validation (after a repair, or not). */
export interface ValidationValue {
  code: string;
  repaired: boolean;
  /** Network, file and process attempts denied during its checks. */
  denials: { network: number; file: number; process: number };
  /** The failure the repair fixed. */
  first_failure?: { reason: string; detail: string };
}

/** One stage's items: how many, how many made it, and the others by reason. */
export interface StageCount {
  items: number;
  ok: number;
  rejected: Record<string, number>;
}

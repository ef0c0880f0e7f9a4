// Validation of one generated tool, inside the sandbox: the environment host (sandboxed persistent
// Python workers) serves `tool_check.py`'s ToolCheck class, one episode per tool under check; its
// `run` executes the tool's code in the worker and reports the value or the failure, and counts the
// network, file and process attempts it denied. Checks, in order: the schema (and the calls'
// arguments against it), the function exists and runs (no exception, timeout, memory), no denied
// access, each call returns its sub-answer, and a second run gives the same output.
import { dirname, join } from "node:path";
import { EnvironmentError, PythonEnvironmentHost, WORKER_SCRIPT } from "@rlfactory/environments";
import { z } from "zod";
import { type Parameters, TOOL_NAME } from "./stage-shapes.ts";

/** The sandbox entry that runs one tool's code (next to the environment worker). */
export const TOOL_CHECK_SCRIPT = join(dirname(WORKER_SCRIPT), "tool_check.py");

/** Names a served bundle keeps for an episode's state (`rlf env serve`). */
const RESERVED_NAMES = new Set(["task", "data"]);

export const FAILURE_REASONS = [
  "schema",
  "missing_function",
  "exception",
  "timeout",
  "memory",
  "crashed",
  "network_access",
  "file_access",
  "process_access",
  "wrong_answer",
  "nondeterministic",
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

export interface Denials {
  network: number;
  file: number;
  process: number;
}

export interface ToolUnderCheck {
  name: string;
  parameters: Parameters;
  code: string;
  /** The calls to make: each with the answer its output must contain (none for a distractor). */
  calls: { arguments: Record<string, unknown>; answer?: string }[];
}

export type CheckResult =
  | { ok: true; denials: Denials; outputs: unknown[] }
  | { ok: false; reason: FailureReason; detail: string; denials: Denials };

interface RunReport {
  status: "ok" | "exception" | "timeout" | "memory" | "missing";
  value?: unknown;
  message?: string;
  denials: Denials;
}

const NO_DENIALS: Denials = { network: 0, file: 0, process: 0 };

/** Lowercase, whitespace collapsed: how an output is searched for its answer. */
function normalize(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

function outputText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Why `parameters` is not a usable JSON Schema, or a call does not fit it; undefined when fine. */
export function schemaProblem(
  tool: Pick<ToolUnderCheck, "name" | "parameters" | "calls">,
): string | undefined {
  if (!TOOL_NAME.test(tool.name)) return `the name ${JSON.stringify(tool.name)} is not a Python identifier`;
  if (RESERVED_NAMES.has(tool.name))
    return `a tool cannot be named ${tool.name} (a bundle episode's own state, when served)`;
  let schema: z.ZodType;
  try {
    schema = z.fromJSONSchema(tool.parameters as Parameters & Record<string, unknown>);
  } catch (err) {
    return `parameters are not a JSON Schema: ${(err as Error).message}`;
  }
  for (const p of tool.parameters.required ?? [])
    if (!(p in tool.parameters.properties)) return `required parameter ${p} is not among the properties`;
  for (const [i, call] of tool.calls.entries()) {
    const parsed = schema.safeParse(call.arguments);
    if (!parsed.success)
      return `call ${i + 1}'s arguments ${JSON.stringify(call.arguments)} do not fit the parameters: ${z.prettifyError(parsed.error)}`;
  }
  return undefined;
}

export interface ToolValidatorOptions {
  /** One call's time limit. */
  timeoutMs: number;
  /** Address space of a worker, MiB. */
  memoryMb: number;
  /** Worker processes (tools checked at once). */
  workers: number;
}

export class ToolValidator {
  private readonly host: PythonEnvironmentHost;
  private readonly options: ToolValidatorOptions;

  private constructor(host: PythonEnvironmentHost, options: ToolValidatorOptions) {
    this.host = host;
    this.options = options;
  }

  static async start(options: ToolValidatorOptions): Promise<ToolValidator> {
    const host = await PythonEnvironmentHost.start({
      classes: [{ file: TOOL_CHECK_SCRIPT, className: "ToolCheck" }],
      workers: options.workers,
      memoryMb: options.memoryMb,
      // The tool's own timer (SIGALRM in the worker) fires first; this ends a worker stuck past it.
      callTimeoutMs: options.timeoutMs * 4 + 5000,
    });
    return new ToolValidator(host, options);
  }

  async stop(): Promise<void> {
    await this.host.stop();
  }

  /** Runs every check; the first failure is the result. */
  async check(tool: ToolUnderCheck): Promise<CheckResult> {
    const problem = schemaProblem(tool);
    if (problem !== undefined) return { ok: false, reason: "schema", detail: problem, denials: NO_DENIALS };
    let handle: string;
    try {
      handle = await this.host.create({
        code: tool.code,
        name: tool.name,
        timeout_ms: this.options.timeoutMs,
      });
    } catch (err) {
      return { ok: false, reason: "crashed", detail: (err as Error).message, denials: NO_DENIALS };
    }
    const denials: Denials = { ...NO_DENIALS };
    try {
      const outputs: unknown[] = [];
      for (const [i, call] of tool.calls.entries()) {
        const runs: RunReport[] = [];
        for (let k = 0; k < 2; k++) {
          const report = await this.run(handle, call.arguments);
          if ("crashed" in report)
            return { ok: false, reason: crashReason(report.crashed), detail: report.crashed, denials };
          for (const key of ["network", "file", "process"] as const) denials[key] += report.denials[key];
          const failed = this.failure(report, denials, `call ${i + 1}`);
          if (failed) return failed;
          runs.push(report);
        }
        const [first, second] = runs as [RunReport, RunReport];
        if (JSON.stringify(first.value) !== JSON.stringify(second.value))
          return {
            ok: false,
            reason: "nondeterministic",
            // The outputs themselves are left out: they differ from run to run, and the report must not.
            detail: `two calls with ${JSON.stringify(call.arguments)} returned different outputs`,
            denials,
          };
        if (call.answer !== undefined && !normalize(outputText(first.value)).includes(normalize(call.answer)))
          return {
            ok: false,
            reason: "wrong_answer",
            detail: `called with ${JSON.stringify(call.arguments)} it returned ${shorten(outputText(first.value))}, which does not contain the sub-answer ${JSON.stringify(call.answer)}`,
            denials,
          };
        outputs.push(first.value);
      }
      return { ok: true, denials, outputs };
    } finally {
      await this.host.close(handle).catch(() => undefined);
    }
  }

  private failure(report: RunReport, denials: Denials, where: string): CheckResult | undefined {
    const message = report.message ?? "";
    const because = message === "" ? "" : ` (${message})`;
    if (report.status === "missing")
      return { ok: false, reason: "missing_function", detail: message, denials };
    if (denials.network > 0)
      return {
        ok: false,
        reason: "network_access",
        detail: `${where}: ${denials.network} network attempts denied${because}`,
        denials,
      };
    if (denials.file > 0)
      return {
        ok: false,
        reason: "file_access",
        detail: `${where}: ${denials.file} file accesses denied${because}`,
        denials,
      };
    if (denials.process > 0)
      return {
        ok: false,
        reason: "process_access",
        detail: `${where}: ${denials.process} process starts denied${because}`,
        denials,
      };
    if (report.status === "timeout")
      return { ok: false, reason: "timeout", detail: `${where}: ${message}`, denials };
    if (report.status === "memory")
      return { ok: false, reason: "memory", detail: `${where}: ${message}`, denials };
    if (report.status === "exception")
      return { ok: false, reason: "exception", detail: `${where}: ${message}`, denials };
    return undefined;
  }

  private async run(handle: string, args: Record<string, unknown>): Promise<RunReport | { crashed: string }> {
    try {
      const result = await this.host.call(handle, "run", { arguments: args });
      if (!result.ok) return { crashed: `${result.error.code}: ${result.error.message}` };
      return result.value as RunReport;
    } catch (err) {
      const code = err instanceof EnvironmentError ? `${err.code}: ` : "";
      return { crashed: `${code}${(err as Error).message}` };
    }
  }
}

/** A worker lost mid-call: past the host's deadline (timeout), out of memory, or otherwise (crashed). */
function crashReason(message: string): FailureReason {
  if (/unanswered|timed? ?out|deadline/i.test(message)) return "timeout";
  if (/memory/i.test(message)) return "memory";
  return "crashed";
}

function shorten(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}

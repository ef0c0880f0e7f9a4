// The `code` tool server: `run_code` runs a Python or JavaScript program in a sandbox, `run_tests`
// runs it against stdin/expected-stdout cases; plus SandboxFusion's `POST /run_code` over HTTP.
import { createToolServer, defineTool, logger, ToolError, type ToolServer } from "@rlfactory/toolkit";
import { z } from "zod";
import { CodeSandbox } from "./code-sandbox.ts";
import {
  decodeFiles,
  FileNameClash,
  filesSchema,
  LANGUAGES,
  limitSchemas,
  MAX_CODE_CHARS,
  MAX_STDIN_CHARS,
} from "./run-request.ts";
import { RUN_STATUSES, type RunResult } from "./run-result.ts";
import { sandboxFusionRoute } from "./sandbox-fusion-route.ts";
import type { SandboxSettings } from "./sandbox-limits.ts";
import { describeAccounting } from "./sandbox-memory.ts";
import { SandboxUnavailable } from "./sandbox-probe.ts";

export interface CodeServerOptions extends Partial<SandboxSettings> {
  /**
   * Where sandboxing does not work: false (default) refuses to start, with the reason; true serves
   * anyway, with run_code and run_tests listed as unavailable (the reason and how to fix it) and
   * POST /run_code answering 503.
   */
  sandboxOptional?: boolean;
}

/** At most this many test cases per run_tests call. */
export const MAX_TESTS = 100;

const SANDBOX_NOTE =
  "Runs in an isolated sandbox: no network, no files but those given, working directory /sandbox, " +
  "limits on time, memory, processes and output.";

/**
 * Checks that sandboxing works here, then builds the server. Where it does not: throws
 * SandboxUnavailable with the reason, or, with `sandboxOptional`, serves the tools as unavailable.
 */
export async function createCodeServer(opts: CodeServerOptions = {}): Promise<ToolServer> {
  const { sandboxOptional = false, ...settings } = opts;
  const sandbox = new CodeSandbox(settings);
  logger.info(
    {
      server: "code",
      memory_accounting: sandbox.memoryAccounting.mode,
      max_memory_mb: sandbox.settings.maxMemoryMb,
      max_run_timeout_s: sandbox.settings.maxRunTimeoutSec,
    },
    `code sandbox memory accounting: ${describeAccounting(sandbox.memoryAccounting)}`,
  );
  const unavailable = await sandbox.check();
  if (unavailable !== undefined && !sandboxOptional) throw new SandboxUnavailable(unavailable);
  if (unavailable !== undefined)
    logger.warn({ server: "code", reason: unavailable }, "code sandbox unavailable");
  const mark = unavailable === undefined ? {} : { unavailable };
  return createToolServer({
    name: "code",
    version: "0.1.0",
    tools: [
      { ...runCodeTool(sandbox), ...mark },
      { ...runTestsTool(sandbox), ...mark },
    ],
    routes: [sandboxFusionRoute(sandbox, unavailable)],
  });
}

const program = {
  code: z.string().min(1).max(MAX_CODE_CHARS).describe("the program's source"),
  language: z.enum(LANGUAGES).describe("python (CPython 3) or javascript (Node.js)"),
};

const hints = { readOnlyHint: true, idempotentHint: false, openWorldHint: false };

const runResult = z.object({
  status: z.enum(RUN_STATUSES),
  return_code: z.number().int().nullable().describe("exit code; null when killed by the sandbox"),
  stdout: z.string(),
  stderr: z.string(),
  execution_time: z.number().describe("seconds"),
  truncated: z.boolean().describe("stdout or stderr was cut at the output cap"),
});

function runCodeTool(sandbox: CodeSandbox) {
  return defineTool({
    name: "run_code",
    title: "Run code",
    description: `Runs a Python or JavaScript program and returns its status, exit code, stdout and stderr. ${SANDBOX_NOTE}`,
    input: z.object({
      ...program,
      stdin: z.string().max(MAX_STDIN_CHARS).optional().describe("standard input"),
      ...limitSchemas(sandbox.settings),
      files: filesSchema.optional(),
    }),
    output: runResult,
    annotations: hints,
    handler: async (args, { signal }) => {
      let files: Record<string, Buffer>;
      try {
        files = decodeFiles(args.files, args.language);
      } catch (err) {
        if (err instanceof FileNameClash) throw new ToolError(err.message);
        throw err;
      }
      const result = await cancellable(signal, () =>
        sandbox.run(
          {
            code: args.code,
            language: args.language,
            files,
            ...(args.stdin !== undefined && { stdin: args.stdin }),
            ...limits(args),
          },
          signal,
        ),
      );
      return result;
    },
    render: (r) => renderRun(r, sandbox.settings.maxOutputBytes),
  });
}

function runTestsTool(sandbox: CodeSandbox) {
  return defineTool({
    name: "run_tests",
    title: "Run tests",
    description:
      "Runs a Python or JavaScript program once per test case, feeding the case's stdin, and counts the cases " +
      `whose stdout equals the expected one (trailing whitespace ignored) and that exit normally. ${SANDBOX_NOTE}`,
    input: z.object({
      ...program,
      tests: z
        .array(z.object({ stdin: z.string().max(MAX_STDIN_CHARS), expected_stdout: z.string() }))
        .min(1)
        .max(MAX_TESTS),
      ...limitSchemas(sandbox.settings),
    }),
    output: z.object({
      passed: z.number().int(),
      total: z.number().int(),
      results: z.array(
        z.object({
          passed: z.boolean(),
          status: z.enum(RUN_STATUSES),
          stdout: z.string(),
          stderr: z.string(),
          execution_time: z.number(),
        }),
      ),
    }),
    annotations: hints,
    handler: async (args, { signal }) =>
      cancellable(signal, () =>
        sandbox.runTests({ code: args.code, language: args.language, ...limits(args) }, args.tests, signal),
      ),
    render: ({ passed, total, results }) =>
      [
        `${passed}/${total} tests passed`,
        ...results.map(
          (r, i) => `#${i + 1}: ${r.passed ? "passed" : "failed"} (${r.status}, ${r.execution_time} s)`,
        ),
      ].join("\n"),
  });
}

function limits(args: { run_timeout?: number | undefined; memory_limit_MB?: number | undefined }) {
  return {
    ...(args.run_timeout !== undefined && { runTimeoutSec: args.run_timeout }),
    ...(args.memory_limit_MB !== undefined && { memoryMb: args.memory_limit_MB }),
  };
}

/** Runs `task`; a cancelled call (queued or running: the sandbox is killed) ends as a tool error. */
async function cancellable<T>(signal: AbortSignal, task: () => Promise<T>): Promise<T> {
  try {
    const result = await task();
    if (!signal.aborted) return result;
  } catch (err) {
    if (!signal.aborted) throw err;
  }
  throw new ToolError("The run was cancelled");
}

export function renderRun(r: RunResult, cap: number): string {
  const exit = r.return_code === null ? "" : `, exit code ${r.return_code}`;
  const parts = [`status: ${r.status}${exit}, ${r.execution_time} s`];
  if (r.stdout) parts.push(`stdout:\n${r.stdout}`);
  if (r.stderr) parts.push(`stderr:\n${r.stderr}`);
  if (r.truncated) parts.push(`(output cut at ${cap} bytes per stream)`);
  return parts.join("\n");
}

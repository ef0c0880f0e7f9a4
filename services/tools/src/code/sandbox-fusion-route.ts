// `POST /run_code` in SandboxFusion's request/response shape (what verl's code rewards call), served
// beside /mcp. Our run statuses map onto SandboxFusion's as follows:
//   ok            → Success      / run_result Finished
//   runtime_error → Failed       / Finished (return_code = exit code, 128 + signal when killed)
//   memory_limit  → Failed       / Finished (the program died of its memory limit)
//   output_limit  → Failed       / Finished (killed for writing too much; return_code null)
//   timeout       → Failed       / TimeLimitExceeded (return_code null)
//   sandbox_error → SandboxError / Error
// Where sandboxing does not work at all (a server started with sandboxOptional), every request is
// answered 503 with status SandboxError and the reason as its message.
import type { HttpRoute, HttpRouteResponse } from "@rlfactory/toolkit";
import { z } from "zod";
import type { CodeSandbox } from "./code-sandbox.ts";
import {
  decodeFiles,
  FileNameClash,
  fileName,
  type Language,
  MAX_CODE_CHARS,
  MAX_STDIN_CHARS,
  memoryTooHigh,
  runTimeoutTooHigh,
} from "./run-request.ts";
import type { RunResult, RunStatus } from "./run-result.ts";
import { MIN_MEMORY_MB } from "./sandbox-limits.ts";

/** SandboxFusion language names we run, and what they run as. */
const LANGUAGE_ALIASES: Record<string, Language> = {
  python: "python",
  python3: "python",
  nodejs: "javascript",
  javascript: "javascript",
};

const OUTCOMES: Record<RunStatus, { status: string; run: string; message: string }> = {
  ok: { status: "Success", run: "Finished", message: "" },
  runtime_error: { status: "Failed", run: "Finished", message: "" },
  memory_limit: { status: "Failed", run: "Finished", message: "memory limit exceeded" },
  output_limit: { status: "Failed", run: "Finished", message: "output limit exceeded" },
  timeout: { status: "Failed", run: "TimeLimitExceeded", message: "" },
  sandbox_error: { status: "SandboxError", run: "Error", message: "the sandbox failed" },
};

function requestSchema(sandbox: CodeSandbox) {
  const { maxRunTimeoutSec, maxMemoryMb } = sandbox.settings;
  return z.object({
    code: z.string().max(MAX_CODE_CHARS),
    language: z.string().refine((l) => l in LANGUAGE_ALIASES, {
      message: `supported languages: ${Object.keys(LANGUAGE_ALIASES).join(", ")}`,
    }),
    compile_timeout: z.number().optional(),
    run_timeout: z.number().positive().max(maxRunTimeoutSec, runTimeoutTooHigh(sandbox.settings)).optional(),
    memory_limit_MB: z
      .number()
      .int()
      .refine((mb) => mb === -1 || mb >= MIN_MEMORY_MB, {
        message: `memory_limit_MB: -1 (the default) or at least ${MIN_MEMORY_MB}`,
      })
      .refine((mb) => mb <= maxMemoryMb, { message: memoryTooHigh(sandbox.settings) })
      .optional(),
    stdin: z.string().max(MAX_STDIN_CHARS).nullable().optional(),
    files: z.record(fileName, z.base64().nullable()).optional(),
  });
}

/** `unavailable`: why sandboxing does not work here (every request is then answered 503). */
export function sandboxFusionRoute(sandbox: CodeSandbox, unavailable?: string): HttpRoute {
  const schema = requestSchema(sandbox);
  return {
    method: "POST",
    path: "/run_code",
    handler: async (body, _req, signal): Promise<HttpRouteResponse> => {
      if (unavailable !== undefined) return { status: 503, body: sandboxError(unavailable) };
      const parsed = schema.safeParse(body);
      if (!parsed.success) return { status: 400, body: { error: z.prettifyError(parsed.error) } };
      const req = parsed.data;
      const language = LANGUAGE_ALIASES[req.language]!;
      const given = Object.entries(req.files ?? {}).filter((e): e is [string, string] => e[1] !== null);
      let files: Record<string, Buffer>;
      try {
        files = decodeFiles(Object.fromEntries(given), language);
      } catch (err) {
        if (err instanceof FileNameClash) return { status: 400, body: { error: err.message } };
        throw err;
      }
      let result: RunResult;
      try {
        result = await sandbox.run(
          {
            code: req.code,
            language,
            stdin: req.stdin ?? "",
            files,
            ...(req.run_timeout !== undefined && { runTimeoutSec: req.run_timeout }),
            ...(req.memory_limit_MB !== undefined &&
              req.memory_limit_MB !== -1 && { memoryMb: req.memory_limit_MB }),
          },
          signal,
        );
      } catch {
        return { status: 200, body: sandboxError("the request was cancelled") };
      }
      if (signal.aborted) return { status: 200, body: sandboxError("the request was cancelled") };
      const outcome = OUTCOMES[result.status];
      return {
        status: 200,
        body: {
          status: outcome.status,
          message: outcome.message,
          compile_result: null,
          run_result: {
            status: outcome.run,
            execution_time: result.execution_time,
            return_code: result.return_code,
            stdout: result.stdout,
            stderr: result.stderr,
          },
          executor_pod_name: null,
          files: {},
        },
      };
    },
  };
}

function sandboxError(message: string) {
  return {
    status: "SandboxError",
    message,
    compile_result: null,
    run_result: null,
    executor_pod_name: null,
    files: {},
  };
}

// What a run is asked for: program, language, stdin, extra files and limits, validated with zod at
// the tool and HTTP boundaries. Schemas depend on the server's maxima, hence the factory.
import { z } from "zod";
import { MIN_MEMORY_MB, type SandboxSettings } from "./sandbox-limits.ts";

export const LANGUAGES = ["python", "javascript"] as const;
export type Language = (typeof LANGUAGES)[number];

export const MAX_CODE_CHARS = 1_000_000;
export const MAX_STDIN_CHARS = 8 * 1024 * 1024;
export const MAX_FILES = 64;
/** The program itself is written to /sandbox/main.py or /sandbox/main.js. */
export const PROGRAM_FILE: Record<Language, string> = { python: "main.py", javascript: "main.js" };

/** Relative paths of plain segments, e.g. `data/input.txt`: no `..`, no absolute paths, no odd characters. */
const FILE_NAME =
  /^(?!\.{1,2}(?:\/|$))[A-Za-z0-9_.-]{1,128}(?:\/(?!\.{1,2}(?:\/|$))[A-Za-z0-9_.-]{1,128}){0,7}$/;

export const fileName = z
  .string()
  .regex(FILE_NAME, "file names are relative paths of letters, digits, `_`, `.` and `-` segments");

export interface RunRequest {
  code: string;
  language: Language;
  stdin: string;
  /** name → content, written into /sandbox before the run. */
  files: Record<string, Buffer>;
  runTimeoutSec: number;
  memoryMb: number;
}

export function limitSchemas(settings: SandboxSettings) {
  return {
    run_timeout: z
      .number()
      .positive()
      .max(settings.maxRunTimeoutSec, runTimeoutTooHigh(settings))
      .optional()
      .describe(`wall-clock limit in seconds (default ${settings.defaultRunTimeoutSec})`),
    memory_limit_MB: z
      .number()
      .int()
      .min(MIN_MEMORY_MB)
      .max(settings.maxMemoryMb, memoryTooHigh(settings))
      .optional()
      .describe(`memory limit in MiB (default ${settings.defaultMemoryMb})`),
  };
}

/** The refusal of a limit above the operator's maximum, naming the maximum and the flag that sets it. */
export function memoryTooHigh(settings: SandboxSettings): string {
  return `memory_limit_MB is at most ${settings.maxMemoryMb} on this server (set by its operator with --max-memory)`;
}

export function runTimeoutTooHigh(settings: SandboxSettings): string {
  return `run_timeout is at most ${settings.maxRunTimeoutSec} s on this server (set by its operator with --max-run-timeout)`;
}

export const filesSchema = z
  .record(fileName, z.base64())
  .refine((files) => Object.keys(files).length <= MAX_FILES, `at most ${MAX_FILES} files`)
  .describe("files written into the working directory: name → base64 content");

export function decodeFiles(
  files: Record<string, string> | undefined,
  language: Language,
): Record<string, Buffer> {
  const decoded: Record<string, Buffer> = {};
  for (const [name, content] of Object.entries(files ?? {})) {
    if (name === PROGRAM_FILE[language]) throw new FileNameClash(name);
    decoded[name] = Buffer.from(content, "base64");
  }
  const names = [...Object.keys(decoded), PROGRAM_FILE[language]];
  for (const name of names) {
    if (names.some((other) => other.startsWith(`${name}/`))) throw new FileNameClash(name);
  }
  return decoded;
}

export class FileNameClash extends Error {
  constructor(name: string) {
    super(`file ${name} clashes with the program file or another file's directory`);
  }
}

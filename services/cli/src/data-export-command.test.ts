// `rlf data export`: each engine's file carries every task whole in `rlf_task`; a bad task file is refused
// naming the line. (Reading the files back with the engines' own Python readers: services/engines/tests.)
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UsageError } from "@rlfactory/kit/command-line";
import { ENGINES } from "@rlfactory/rollout/engine-datasets";
import { asyncBufferFromFile, parquetReadObjects } from "hyparquet";
import { describe, expect, it } from "vitest";
import { findCommand } from "./commands.ts";
import { runDataExportCommand } from "./data-export-command.ts";

const dir = mkdtempSync(join(tmpdir(), "rlf-data-export-"));

const TASKS = [
  {
    id: "bfcl-like",
    data_source: "bfcl_multi_turn_base",
    prompt: [{ role: "user", content: "Make a folder temp." }],
    ground_truth: [{ name: "mkdir", arguments: { dir_name: "temp" } }],
    environment: { server: "bfcl", config: { involved_classes: ["GorillaFileSystem"] } },
    tool_aliases: { mkdir: "bfcl__mkdir" },
    turns: [{ content: "Now list it.", ground_truth: [{ name: "ls", arguments: {} }] }],
  },
  { id: "qa", prompt: [{ role: "user", content: "Who wrote Dune?" }], ground_truth: "Frank Herbert" },
];

function taskFile(name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

const good = taskFile(
  "tasks.jsonl",
  TASKS.map((t) => JSON.stringify(t)),
);

async function exported(engine: string, out: string): Promise<string> {
  const path = join(dir, out);
  expect(await runDataExportCommand(["--engine", engine, "--in", good, "--out", path])).toBe(0);
  return path;
}

const jsonl = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("rlf data export", () => {
  it("verl: Parquet rows in the rlfactory agent loop, the task in extra_info.rlf_task", async () => {
    const rows = await parquetReadObjects({
      file: await asyncBufferFromFile(await exported("verl", "train.parquet")),
    });
    const info = rows.map((r) => r.extra_info as { rlf_task: string; task_id: string });
    expect(info.map((i) => JSON.parse(i.rlf_task))).toEqual(TASKS);
    expect(rows.map((r) => r.agent_name)).toEqual(["rlfactory", "rlfactory"]);
    expect((rows[1]!.reward_model as { ground_truth: string }).ground_truth).toBe("Frank Herbert");
  });

  it("skyrl: Parquet with an rlf_task column; slime: metadata.rlf_task; trl: an rlf_task column", async () => {
    const sky = await parquetReadObjects({
      file: await asyncBufferFromFile(await exported("skyrl", "sky.parquet")),
    });
    expect(sky.map((r) => JSON.parse(r.rlf_task as string))).toEqual(TASKS);
    const slime = jsonl(await exported("slime", "slime.jsonl"));
    expect(slime.map((r) => JSON.parse((r.metadata as { rlf_task: string }).rlf_task))).toEqual(TASKS);
    expect(slime.map((r) => r.label)).toEqual(TASKS.map((t) => t.ground_truth));
    const trl = jsonl(await exported("trl", "trl.jsonl"));
    expect(trl.map((r) => Object.keys(r).sort())).toEqual([
      ["prompt", "rlf_task"],
      ["prompt", "rlf_task"],
    ]);
    expect(trl.map((r) => JSON.parse(r.rlf_task as string))).toEqual(TASKS);
  });

  it("names the line of a task that is not JSON, not a task, or a repeated id", async () => {
    const run = (lines: string[]) =>
      runDataExportCommand([
        "--engine",
        "trl",
        "--in",
        taskFile("bad.jsonl", lines),
        "--out",
        join(dir, "x"),
      ]);
    const ok = JSON.stringify(TASKS[1]);
    await expect(run([ok, "{not json"])).rejects.toThrow(/bad\.jsonl:2: not JSON/);
    await expect(run([ok, "", JSON.stringify({ id: "p", prompt: [] })])).rejects.toThrow(
      /bad\.jsonl:3: not a rollout task: prompt: /,
    );
    await expect(run([ok, ok])).rejects.toThrow(/bad\.jsonl:2: duplicate task id "qa" \(first on line 1\)/);
  });

  it("says what it needs", async () => {
    await expect(runDataExportCommand(["--engine", "verl", "--in", good])).rejects.toThrow(
      /needs --engine, --in and --out/,
    );
    await expect(runDataExportCommand(["--engine", "openrlhf", "--in", good, "--out", "x"])).rejects.toThrow(
      /--engine must be one of verl, slime, skyrl, trl \(got "openrlhf"\)/,
    );
    await expect(runDataExportCommand(["--bogus"])).rejects.toThrow(UsageError);
  });

  it("its help names every engine it writes", () => {
    expect(findCommand(["data", "export"])?.command.usage).toContain(`--engine ${ENGINES.join("|")} `);
  });
});

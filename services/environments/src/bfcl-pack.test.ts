// The BFCL multi-turn pack against bfcl-eval itself: for the first entry of each class combination of
// BFCL_v4_multi_turn_base, an episode runs the ground-truth calls through the host (read with ast on
// the worker), and its snapshot equals the state bfcl-eval's own execute_multi_turn_func_call leaves on
// fresh instances (fixtures/bfcl_reference.py, outside the sandbox, same encoder).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { haveSharedData, sharedDataPath } from "@rlfactory/test-support/shared-data";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BFCL_CLASSES, BFCL_VENV, bfclPackageDir, startBfclHost } from "./bfcl-pack.ts";
import type { PythonEnvironmentHost } from "./python-environment-host.ts";
import { WORKER_SCRIPT } from "./python-environment-host.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
const ENTRIES = "bfcl/BFCL_v4_multi_turn_base.json";
const ANSWERS = "bfcl/possible_answer/BFCL_v4_multi_turn_base.json";

/** The pack's venv: under CI it must exist (`npm run setup:environments`); elsewhere the tests are skipped. */
function haveVenv(): boolean {
  if (bfclPackageDir() !== undefined) return true;
  const message = `BFCL pack: bfcl-eval is not installed in ${BFCL_VENV} (run npm run setup:environments)`;
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

interface Entry {
  id: string;
  involved_classes: string[];
  initial_config: Record<string, unknown>;
}

function readJsonLines<T>(relative: string): T[] {
  return readFileSync(sharedDataPath(relative), "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T);
}

const READY = haveVenv() && haveSharedData("BFCL pack", ENTRIES, ANSWERS);

describe.skipIf(!READY)("the BFCL multi-turn pack", () => {
  let host: PythonEnvironmentHost;
  beforeAll(async () => {
    host = await startBfclHost({ workers: 2 });
  });
  afterAll(async () => {
    await host?.stop();
  });

  it("serves the eight classes' methods as tools with BFCL's function docs as JSON Schema", () => {
    const tools = host.tools();
    const names = tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const doc of [
      "cd",
      "mkdir",
      "add",
      "send_message",
      "post_tweet",
      "create_ticket",
      "get_stock_info",
      "book_flight",
      "startEngine",
    ])
      expect(names).toContain(doc);
    for (const tool of tools) expect(tool.inputSchema.type).toBe("object");
    expect(JSON.stringify(tools)).not.toContain('"type":"dict"');
    expect(Object.keys(BFCL_CLASSES)).toHaveLength(8);
  });

  it("leaves the state bfcl-eval's own execution leaves, for the first entry of each class combination", async () => {
    const answers = new Map(
      readJsonLines<{ id: string; ground_truth: string[][] }>(ANSWERS).map((a) => [a.id, a.ground_truth]),
    );
    const combinations = new Map<string, Entry>();
    for (const entry of readJsonLines<Entry>(ENTRIES)) {
      const key = [...entry.involved_classes].sort().join(",");
      if (!combinations.has(key)) combinations.set(key, entry);
    }
    const entries = [...combinations.values()];
    expect(new Set(entries.flatMap((e) => e.involved_classes))).toEqual(new Set(Object.keys(BFCL_CLASSES)));

    const ours = new Map<string, Record<string, unknown>>();
    let calls = 0;
    let changed = 0;
    for (const entry of entries) {
      const handle = await host.create({
        involved_classes: entry.involved_classes,
        initial_config: entry.initial_config,
      });
      const initial = await host.snapshot(handle);
      for (const turn of answers.get(entry.id)!) {
        for (const text of turn) {
          const { tool, arguments: args } = await host.parseCall(text);
          await host.call(handle, tool, args);
          calls++;
        }
      }
      ours.set(entry.id, await host.close(handle));
      if (JSON.stringify(ours.get(entry.id)) !== JSON.stringify(initial)) changed++;
    }
    expect(calls).toBeGreaterThan(entries.length);
    expect(changed).toBeGreaterThan(entries.length / 2);

    const input = entries.map((e) => JSON.stringify({ ...e, turns: answers.get(e.id) })).join("\n");
    const reference = spawnSync(join(BFCL_VENV, "bin/python"), [join(HERE, "fixtures/bfcl_reference.py")], {
      input,
      env: { ...process.env, ENV_WORKER_DIR: dirname(WORKER_SCRIPT) },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(reference.status, reference.stderr).toBe(0);
    const theirs = reference.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: string; state: Record<string, unknown> });
    expect(theirs).toHaveLength(entries.length);
    for (const { id, state } of theirs) expect(ours.get(id), id).toEqual(state);
  });

  it("loads long_context entries with long_context=True when the config says long_context: true, as bfcl-eval does", async () => {
    const data = join(bfclPackageDir()!, "data");
    const read = <T>(path: string) =>
      readFileSync(path, "utf8")
        .split("\n")
        .filter((line) => line.trim())
        .map((line) => JSON.parse(line) as T);
    const answers = new Map(
      read<{ id: string; ground_truth: string[][] }>(
        join(data, "possible_answer/BFCL_v4_multi_turn_long_context.json"),
      ).map((a) => [a.id, a.ground_truth]),
    );
    // the first entry of each class the long_context flag changes
    const entries: Entry[] = [];
    for (const cls of ["GorillaFileSystem", "TradingBot", "TravelAPI"]) {
      const all = read<Entry>(join(data, "BFCL_v4_multi_turn_long_context.json"));
      const entry = all.find((e) => e.involved_classes.includes(cls) && !entries.includes(e));
      if (entry !== undefined) entries.push(entry);
    }
    expect(entries).toHaveLength(3);

    const ours = new Map<string, Record<string, unknown>>();
    for (const entry of entries) {
      const config = { involved_classes: entry.involved_classes, initial_config: entry.initial_config };
      const long = await host.create({ ...config, long_context: true });
      const short = await host.create(config);
      // each class that takes the flag was loaded with it (GorillaFileSystem's tree also grows)
      const [longState, shortState] = [await host.snapshot(long), await host.snapshot(short)];
      for (const [cls, state] of Object.entries(longState)) {
        const flag = (state as { long_context?: boolean }).long_context;
        expect([cls, flag], entry.id).toEqual([cls, flag === undefined ? undefined : true]);
      }
      expect(longState, entry.id).not.toEqual(shortState);
      if (entry.involved_classes.includes("GorillaFileSystem"))
        expect(JSON.stringify(longState).length).toBeGreaterThan(JSON.stringify(shortState).length + 1000);
      await host.close(short);
      for (const turn of answers.get(entry.id)!) {
        for (const text of turn) {
          const { tool, arguments: args } = await host.parseCall(text);
          await host.call(long, tool, args);
        }
      }
      ours.set(entry.id, await host.close(long));
    }
    const input = entries
      .map((e) => JSON.stringify({ ...e, turns: answers.get(e.id), long_context: true }))
      .join("\n");
    const reference = spawnSync(join(BFCL_VENV, "bin/python"), [join(HERE, "fixtures/bfcl_reference.py")], {
      input,
      env: { ...process.env, ENV_WORKER_DIR: dirname(WORKER_SCRIPT) },
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    });
    expect(reference.status, reference.stderr).toBe(0);
    const theirs = reference.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: string; state: Record<string, unknown> });
    expect(theirs.map((t) => t.id)).toEqual(entries.map((e) => e.id));
    for (const { id, state } of theirs) expect(ours.get(id), id).toEqual(state);
  });

  it("answers a result holding an mpmath number with the number's text (MathAPI.logarithm), not an empty object", async () => {
    const h = await host.create({ involved_classes: ["MathAPI"], initial_config: {} });
    const out = await host.call(h, "logarithm", { value: 10, base: 3, precision: 25 });
    expect(out).toMatchObject({
      ok: true,
      value: { result: expect.stringMatching(/^2\.0959032742893846042\d*$/) },
    });
    await host.close(h);
  });

  it("refuses a long_context that is not a boolean", async () => {
    const entry = readJsonLines<Entry>(ENTRIES)[0]!;
    await expect(
      host.create({
        involved_classes: entry.involved_classes,
        initial_config: entry.initial_config,
        long_context: "yes",
      }),
    ).rejects.toMatchObject({ code: "BAD_CONFIG", message: expect.stringMatching(/long_context/) });
  });

  it("forks an episode into 16 independent copies", async () => {
    const entry = readJsonLines<Entry>(ENTRIES)[0]!;
    const parent = await host.create({
      involved_classes: entry.involved_classes,
      initial_config: entry.initial_config,
    });
    const before = await host.snapshot(parent);
    const forks = await host.fork(parent, 16);
    await host.call(forks[3]!, "mkdir", { dir_name: "only_in_fork_3" });
    const states = await Promise.all(forks.map((h) => host.snapshot(h)));
    states.forEach((state, i) => {
      if (i === 3) expect(state).not.toEqual(before);
      else expect(state).toEqual(before);
    });
    expect(JSON.stringify(states[3])).toContain("only_in_fork_3");
    expect(await host.snapshot(parent)).toEqual(before);
    await Promise.all([parent, ...forks].map((h) => host.close(h)));
  });

  it("refuses classes that are not in the pack", async () => {
    await expect(
      host.create({ involved_classes: ["WebSearchAPI"], initial_config: {} }),
    ).rejects.toMatchObject({
      code: "BAD_CONFIG",
    });
  });
});

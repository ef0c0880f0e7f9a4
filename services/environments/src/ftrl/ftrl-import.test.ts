// FTRL's formats as bundles and tasks, without serving them: both forms import, the same input gives
// the same bundle hash, tools under one name that differ are kept apart, and malformed input is refused
// with an error naming the file, line and field.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ftrlSampleRows,
  STORE_DATABASE_FILES,
  writeFtrlEnvironment,
} from "@rlfactory/test-support/ftrl-fixtures";
import { afterAll, describe, expect, it } from "vitest";
import { type JsonText, readBundle, writeBundle } from "../bundle/index.ts";
import { convertFtrlTasks, FtrlFormatError, importFtrl } from "./index.ts";

const ROOT = mkdtempSync(join(tmpdir(), "rlf-ftrl-import-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(ROOT, `d${n++}`);

function writeRows(rows: unknown[]): string {
  const file = join(fresh(), "rows.jsonl");
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
  return file;
}

async function refused(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FtrlFormatError);
  return (err as Error).message;
}

describe("rlf env import-ftrl / rlf data ftrl (formats)", () => {
  it("imports an environment directory: tables from the database files, tasks from τ-bench-style rows", async () => {
    const dir = fresh();
    writeFtrlEnvironment(join(dir, "store"), join(dir, "tasks.jsonl"));
    const content = await importFtrl(join(dir, "store"), {
      tasks: join(dir, "tasks.jsonl"),
      dataSource: "store",
    });
    expect(content.form).toBe("environment");
    expect(content.name).toBe("store");
    // the database files byte for byte: FTRL's key order and N.0 floats, in the bundle as imported
    const texts = (data: Record<string, unknown> | undefined) =>
      Object.fromEntries(Object.entries(data ?? {}).map(([t, v]) => [t, (v as JsonText).text]));
    expect(texts(content.data)).toEqual(STORE_DATABASE_FILES);
    const bundleDir = fresh();
    await writeBundle(bundleDir, content);
    for (const [table, text] of Object.entries(STORE_DATABASE_FILES))
      expect(readFileSync(join(bundleDir, `data/${table}.json`), "utf8")).toBe(text);
    expect(texts((await readBundle(bundleDir)).data)).toEqual(STORE_DATABASE_FILES);
    expect(content.tools.map((t) => t.name)).toEqual([
      "get_user",
      "list_products",
      "place_order",
      "cancel_order",
      "add_funds",
    ]);
    expect(content.tasks.map((t) => t.actions?.map((a) => a.name))).toEqual([
      ["place_order", "place_order", "cancel_order"],
      ["cancel_order", "add_funds", "place_order"],
      ["list_products", "get_user", "place_order", "place_order", "get_user"],
    ]);
    expect(content.source).toEqual({
      kind: "ftrl-environment",
      directory: "store",
      tasks: "tasks.jsonl",
      data_source: "store",
    });
    // the same input, imported again, gives the same bundle
    const again = await importFtrl(join(dir, "store"), {
      tasks: join(dir, "tasks.jsonl"),
      dataSource: "store",
    });
    expect((await writeBundle(fresh(), again)).hash).toBe((await writeBundle(fresh(), content)).hash);
  });

  it("refuses a task calling a tool the environment lacks, codes without data, and a missing tools.json", async () => {
    const dir = fresh();
    writeFtrlEnvironment(join(dir, "store"), join(dir, "tasks.jsonl"));
    expect(await refused(importFtrl(join(dir, "store"), { tasks: join(dir, "tasks.jsonl") }))).toMatch(
      /tasks\.jsonl line 4: actions\[0\] calls book_flight, not a tool of/,
    );
    writeFileSync(
      join(dir, "store/codes.json"),
      JSON.stringify({ get_user: "def get_user(user_id):\n    return 1" }),
    );
    expect(await refused(importFtrl(join(dir, "store")))).toMatch(
      /codes\.json: codes has no source for tool list_products/,
    );
    rmSync(join(dir, "store/tools.json"));
    expect(await refused(importFtrl(join(dir, "store")))).toMatch(/tools\.json: missing/);
  });

  it("imports per-sample rows: two tools under one name are kept apart, and tasks name them as FTRL does", async () => {
    const file = writeRows([...ftrlSampleRows(), ftrlSampleRows()[1]]); // the last row repeats one
    const content = await importFtrl(file);
    expect(content.form).toBe("sample");
    const adds = content.tools.map((t) => t.name).filter((name) => name.startsWith("add"));
    expect(adds).toHaveLength(2);
    for (const name of adds) expect(content.code[name]).toMatch(new RegExp(`\\n${name} = add\\n$`));
    const dir = fresh();
    await writeBundle(dir, content);
    const tasks = await convertFtrlTasks(file, await readBundle(dir), { server: "s" });
    expect(tasks.map((t) => t.tools)).toEqual([["get_weather", "to_fahrenheit", "add"], ["add"]]);
    expect(new Set(tasks.map((t) => t.tool_aliases.add)).size).toBe(2);
    expect(tasks[0]?.extra_info.unsolved_set).toEqual({ get_weather: ["21"], to_fahrenheit: ["69.8"] });
    expect(tasks[0]?.ground_truth).toBe("69.8");
    // a row of another file is not a task of this bundle
    const other = writeRows([{ ...ftrlSampleRows()[0], answer: "70" }]);
    expect(await refused(convertFtrlTasks(other, await readBundle(dir)))).toMatch(
      /rows\.jsonl line 1: task ftrl-\w+ is not in bundle/,
    );
  });

  it("refuses a row that would not be a rollout task (a message role the contract's Task does not know)", async () => {
    const [row] = ftrlSampleRows();
    const file = writeRows([{ ...row, messages: [{ role: "function", content: "21" }] }]);
    const dir = fresh();
    await writeBundle(dir, await importFtrl(file));
    expect(await refused(convertFtrlTasks(file, await readBundle(dir)))).toMatch(
      /rows\.jsonl line 1: not a rollout task: prompt\.0\.role: /,
    );
  });

  it("refuses malformed per-sample rows, naming the line and field", async () => {
    const [row] = ftrlSampleRows();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...row, tools: "[not json" }, /line 1: tools is text but not JSON/],
      [
        { ...row, codes: JSON.stringify({ get_weather: "x = 1" }) },
        /line 1: codes.get_weather does not define def get_weather\(...\)/,
      ],
      [
        { ...row, unsolved_set: JSON.stringify({ nope: ["1"] }) },
        /line 1: unsolved_set names nope, not one of the row's tools/,
      ],
      [{ ...row, messages: [] }, /line 1: messages must be a non-empty list/],
      [{ question: "no tools" }, /line 1: neither a per-sample row .* nor a τ-bench-style row/],
    ];
    for (const [bad, message] of cases) expect(await refused(importFtrl(writeRows([bad])))).toMatch(message);
  });
});

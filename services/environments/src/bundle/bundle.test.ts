// The bundle format: deterministic writing (same content → same bytes and hash), verification on
// reading (a tampered, unlisted or missing file is refused, naming the file), the cross-file rules.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type BundleContent,
  BundleError,
  bundleHash,
  fileDigest,
  JsonText,
  readBundle,
  writeBundle,
} from "../index.ts";

const ROOT = mkdtempSync(join(tmpdir(), "rlf-bundle-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(ROOT, `b${n++}`);

function content(): BundleContent {
  return {
    name: "shop",
    form: "environment",
    source: { kind: "ftrl-environment", fixture: true },
    // deliberately out of order: the writer orders tools by name and tasks by id
    tools: [
      {
        name: "sell",
        description: "Sells an item",
        parameters: { type: "object", properties: { item: { type: "string" } }, required: ["item"] },
      },
      { name: "count", description: "Counts items", parameters: { type: "object", properties: {} } },
    ],
    code: {
      sell: "def sell(data, item):\n    data['stock'][item] -= 1\n    return 'ok'\n",
      count: "def count(data):\n    return str(sum(data['stock'].values()))\n",
    },
    data: { stock: { apple: 3, pear: 1 }, orders: [] },
    tasks: [
      { id: "t2", tools: ["count"], question: "How many?", answer: "4" },
      {
        id: "t1",
        tools: ["sell", "count"],
        instruction: "Sell an apple",
        actions: [{ name: "sell", arguments: { item: "apple" } }],
        complexity: {
          structure: "single",
          hops: 1,
          parallel: 0,
          tools: 2,
          distractors: 1,
          parameter_types: ["string"],
        },
      },
    ],
  };
}

describe("environment bundles", () => {
  it("writes the same bytes and hash for the same content, and reads back what was written", async () => {
    const [a, b] = [fresh(), fresh()];
    const ma = await writeBundle(a, content());
    const reordered = content();
    reordered.tools.reverse();
    reordered.tasks.reverse();
    const mb = await writeBundle(b, reordered);
    expect(mb.hash).toBe(ma.hash);
    expect(readFileSync(join(b, "manifest.json"), "utf8")).toBe(
      readFileSync(join(a, "manifest.json"), "utf8"),
    );
    expect(Object.keys(ma.files)).toEqual([
      "code/count.py",
      "code/sell.py",
      "data/orders.json",
      "data/stock.json",
      "tasks.jsonl",
      "tools.json",
    ]);
    expect(ma.hash).toBe(bundleHash(ma.files));
    expect(ma.files["tools.json"]).toBe(fileDigest(readFileSync(join(a, "tools.json"))));
    expect(Object.keys(ma)).toEqual([
      "format",
      "version",
      "name",
      "form",
      "source",
      "versions",
      "files",
      "hash",
    ]);
    expect(JSON.stringify(ma)).not.toContain(ROOT);

    const bundle = await readBundle(a);
    expect(bundle.hash).toBe(ma.hash);
    expect(bundle.tools.map((t) => t.name)).toEqual(["count", "sell"]);
    expect(bundle.tasks.map((t) => t.id)).toEqual(["t1", "t2"]);
    expect(
      Object.fromEntries(Object.entries(bundle.data).map(([t, v]) => [t, (v as JsonText).value()])),
    ).toEqual({ stock: { apple: 3, pear: 1 }, orders: [] });
    expect(bundle.code.sell).toBe(content().code.sell);
    expect(Object.keys(bundle.tasks[0] ?? {})).toEqual([
      "id",
      "tools",
      "instruction",
      "actions",
      "complexity",
    ]);
    // writing what was read gives the same bundle again
    expect((await writeBundle(fresh(), bundle)).hash).toBe(ma.hash);
  });

  it("keeps a table given as text byte for byte (key order, N.0 floats): its hash is that of its bytes", async () => {
    const text = '{"9690244451": {"price": 198.0}, "1151293680": {"price": 30.5}}\n';
    const kept = { ...content(), data: { stock: new JsonText(text), orders: [] } };
    const dir = fresh();
    const manifest = await writeBundle(dir, kept);
    expect(readFileSync(join(dir, "data/stock.json"), "utf8")).toBe(text);
    expect(manifest.files["data/stock.json"]).toBe(fileDigest(text));
    // the same values in JS's order are another database (the tools would show them otherwise)
    const reordered = {
      ...kept,
      data: { stock: new JsonText(JSON.stringify(JSON.parse(text))), orders: [] },
    };
    expect((await writeBundle(fresh(), reordered)).hash).not.toBe(manifest.hash);
    const back = await readBundle(dir);
    expect((back.data.stock as JsonText).text).toBe(text);
    expect((await writeBundle(fresh(), back)).hash).toBe(manifest.hash);
  });

  it("a different content gives a different hash", async () => {
    const changed = content();
    changed.data = { ...changed.data, stock: { apple: 2, pear: 1 } };
    expect((await writeBundle(fresh(), changed)).hash).not.toBe((await writeBundle(fresh(), content())).hash);
  });

  it("refuses a tampered file, naming it", async () => {
    const dir = fresh();
    await writeBundle(dir, content());
    writeFileSync(join(dir, "code/sell.py"), "import os\nos.system('true')\n");
    const err = await readBundle(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BundleError);
    expect((err as BundleError).file).toBe("code/sell.py");
    expect((err as Error).message).toMatch(/^code\/sell\.py: digest mismatch/);
  });

  it("refuses a manifest whose hash does not match its files, an unlisted file and a missing one", async () => {
    const dir = fresh();
    const manifest = await writeBundle(dir, content());
    const path = join(dir, "manifest.json");
    writeFileSync(path, JSON.stringify({ ...manifest, hash: `sha256:${"0".repeat(64)}` }));
    await expect(readBundle(dir)).rejects.toThrow(/^manifest\.json: hash mismatch/);

    await writeBundle(dir, content());
    writeFileSync(join(dir, "data/extra.json"), "{}");
    await expect(readBundle(dir)).rejects.toThrow(/^data\/extra\.json: not listed in manifest\.json/);

    await writeBundle(dir, content());
    rmSync(join(dir, "data/orders.json"));
    await expect(readBundle(dir)).rejects.toThrow(
      /^data\/orders\.json: listed in manifest\.json but missing/,
    );

    await expect(readBundle(join(ROOT, "nowhere"))).rejects.toThrow(/manifest\.json: missing/);
  });

  it("refuses content that breaks the cross-file rules", async () => {
    const noCode = content();
    delete noCode.code.count;
    await expect(writeBundle(fresh(), noCode)).rejects.toThrow(/^code\/count\.py: missing/);
    const badTask = content();
    badTask.tasks.push({ id: "t3", tools: ["refund"] });
    await expect(writeBundle(fresh(), badTask)).rejects.toThrow(
      /task "t3" offers tool "refund", not in tools\.json/,
    );
    const sampleWithData = { ...content(), form: "sample" as const };
    await expect(writeBundle(fresh(), sampleWithData)).rejects.toThrow(/only a bundle of form "environment"/);
    const badName = content();
    badName.tools.push({ name: "../x", description: "", parameters: {} });
    await expect(writeBundle(fresh(), badName)).rejects.toThrow(/^tools\.json: tool 2: name/);
  });

  it("refuses to write into a directory that is not a bundle", async () => {
    const dir = fresh();
    await writeBundle(dir, content());
    rmSync(join(dir, "manifest.json"));
    await expect(writeBundle(dir, content())).rejects.toThrow(/not empty and not a bundle/);
  });
});

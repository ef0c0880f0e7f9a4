// The README's repository layout names every workspace of the root package.json, by its path and
// package name, and nothing that does not exist.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "@rlfactory/test-support/gateway-harness";
import { codeSpans, markdownTable, readDoc } from "@rlfactory/test-support/markdown";
import { describe, expect, it } from "vitest";

const readJson = (path: string) =>
  JSON.parse(readFileSync(join(ROOT, path), "utf8")) as Record<string, unknown>;

describe("README.md repository layout", () => {
  const rows = markdownTable(readDoc("README.md"), "path").map((r) => ({
    path: codeSpans(r.path!)[0]!.replace(/\/$/, ""),
    name: codeSpans(r.package!)[0],
  }));

  it("lists every npm workspace under its package name", () => {
    const workspaces = readJson("package.json").workspaces as string[];
    const listed = new Map(rows.map((r) => [r.path, r.name]));
    for (const ws of workspaces) {
      expect(listed.has(ws), `${ws} is missing from the README's layout`).toBe(true);
      expect(listed.get(ws), ws).toBe(readJson(`${ws}/package.json`).name);
    }
  });

  it("names only paths that exist", () => {
    for (const { path } of rows) expect(existsSync(join(ROOT, path)), path).toBe(true);
    const engines = readFileSync(join(ROOT, "services/engines/pyproject.toml"), "utf8");
    const pip = rows.find((r) => r.path === "services/engines")?.name;
    expect(engines).toContain(`name = "${pip}"`);
  });
});

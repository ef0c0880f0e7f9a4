import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigFileError, loadConfigFile, parseConfig, readConfigFile } from "./config-file.ts";

const schema = z
  .object({
    name: z.string(),
    limits: z
      .object({ max_bytes: z.number().int().positive().default(1024) })
      .strict()
      .default({ max_bytes: 1024 }),
  })
  .strict();

class ServiceConfigError extends Error {}

function file(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "kit-config-")), name);
  writeFileSync(path, text);
  return path;
}

describe("config files", () => {
  it("reads YAML and JSON into the schema's output, defaults filled", () => {
    const yaml = file("a.yaml", "name: alpha\nlimits:\n  max_bytes: 10\n");
    const json = file("b.json", '{ "name": "beta" }');
    expect(loadConfigFile(yaml, schema, { what: "test config" })).toEqual({
      name: "alpha",
      limits: { max_bytes: 10 },
    });
    expect(loadConfigFile(json, schema, { what: "test config" })).toEqual({
      name: "beta",
      limits: { max_bytes: 1024 },
    });
  });

  it("an empty file is an empty mapping", () => {
    expect(readConfigFile(file("empty.yaml", ""), { what: "test config" })).toEqual({});
  });

  it("a validation error names the file and every offending key path", () => {
    const path = file("bad.yaml", "name: 3\nlimits:\n  max_bytes: -1\n  extra: 1\n");
    let caught: unknown;
    try {
      loadConfigFile(path, schema, { what: "test config" });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigFileError);
    const message = (caught as Error).message;
    expect(message).toContain(`invalid test config ${path}:`);
    expect(message).toContain("→ at name");
    expect(message).toContain("→ at limits.max_bytes");
    expect(message).toContain('"extra"');
  });

  it("unreadable and unparsable files name the file; the caller's error class is thrown", () => {
    const missing = join(tmpdir(), "kit-config-missing", "none.yaml");
    expect(() => readConfigFile(missing, { what: "test config", error: ServiceConfigError })).toThrow(
      ServiceConfigError,
    );
    expect(() => readConfigFile(missing, { what: "test config" })).toThrow(
      `cannot read test config ${missing}`,
    );
    const broken = file("broken.yaml", "name: [unclosed\n");
    expect(() => readConfigFile(broken, { what: "test config" })).toThrow(
      `cannot parse test config ${broken}`,
    );
  });

  it("a custom text parser replaces YAML", () => {
    const path = file("c.txt", "name=gamma");
    const parseText = (text: string) => Object.fromEntries([text.split("=")]);
    expect(loadConfigFile(path, schema, { what: "test config", parseText }).name).toBe("gamma");
  });

  it("parseConfig without a file says what was invalid", () => {
    expect(() => parseConfig(schema, {}, { what: "test config", error: ServiceConfigError })).toThrow(
      /invalid test config:\n.*\n {2}→ at name/,
    );
  });
});

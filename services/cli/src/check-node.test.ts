// The Node.js preflight (bin/check-node.cjs): on a Node older than package.json's engines.node, `rlf`,
// `npm start` and `npm test` stop with one line saying which Node is needed and how to get it. Old
// Nodes are real processes: this machine's /usr/bin/node when it is older, and the running Node
// started with a preload that makes it report an older version (the only thing the check reads).
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const CHECK = join(ROOT, "services/cli/bin/check-node.cjs");
const RLF = join(ROOT, "services/cli/bin/rlf.js");

const expectedLine = (found: string) =>
  `rlfactory needs Node.js >= 22.18 (found ${found}): install Node 22 (\`nvm install 22\`, or \`npm install -g node@22\`) and run this again.\n`;

const dir = mkdtempSync(join(tmpdir(), "rlf-check-node-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const spoof = join(dir, "report-version.cjs");
writeFileSync(
  spoof,
  [
    "const v = process.env.RLF_TEST_NODE_VERSION;",
    'Object.defineProperty(process.versions, "node", { value: v });',
    'Object.defineProperty(process, "version", { value: "v" + v });',
  ].join("\n"),
);
/** A `node` on PATH that is the running Node reporting RLF_TEST_NODE_VERSION (npm scripts run `node`). */
const binDir = join(dir, "bin");
mkdirSync(binDir);
writeFileSync(join(binDir, "node"), `#!/bin/sh\nexec "${process.execPath}" -r "${spoof}" "$@"\n`, {
  mode: 0o755,
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command in its own process group; after 60 s the whole group is killed (a script gone astray). */
function run(file: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(file, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.pid && process.kill(-child.pid, "SIGKILL"), 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code: code ?? -1, stdout, stderr });
    });
  });
}

const reporting = (version: string) => ({ ...process.env, RLF_TEST_NODE_VERSION: version });

/** Nodes older than 22.18 installed on this machine (the default Node of the dev machines is 20). */
const machineOldNodes = ["/usr/bin/node", "/usr/local/bin/node"].flatMap((path) => {
  if (!existsSync(path)) return [];
  const version = execFileSync(path, ["--version"], { encoding: "utf8" }).trim();
  const [major = 0, minor = 0] = version.slice(1).split(".").map(Number);
  return major < 22 || (major === 22 && minor < 18) ? [{ path, version }] : [];
});

describe("Node.js preflight", () => {
  it("passes silently on the running Node", async () => {
    expect(await run(process.execPath, [CHECK])).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it.each(["22.18.0", "22.23.3", "24.1.0"])("passes silently on Node %s", async (version) => {
    expect(await run(process.execPath, ["-r", spoof, CHECK], reporting(version))).toEqual({
      code: 0,
      stdout: "",
      stderr: "",
    });
  });

  it.each(["20.20.2", "22.17.1", "18.19.0"])("stops with one line on Node %s", async (version) => {
    expect(await run(process.execPath, ["-r", spoof, CHECK], reporting(version))).toEqual({
      code: 1,
      stdout: "",
      stderr: expectedLine(`v${version}`),
    });
  });

  it.each(machineOldNodes)(
    "stops with one line on this machine's $path ($version)",
    async ({ path, version }) => {
      expect(await run(path, [CHECK])).toEqual({ code: 1, stdout: "", stderr: expectedLine(version) });
      expect(await run(path, [RLF, "stack"])).toEqual({ code: 1, stdout: "", stderr: expectedLine(version) });
    },
  );

  it("rlf stops with the same line before loading any TypeScript", async () => {
    expect(await run(process.execPath, ["-r", spoof, RLF, "stack"], reporting("20.20.2"))).toEqual({
      code: 1,
      stdout: "",
      stderr: expectedLine("v20.20.2"),
    });
  });

  it("npm install on Node 20 stops at once (engine-strict), naming the Node it needs, before installing anything", async () => {
    const env = { ...reporting("20.20.2"), PATH: `${binDir}${delimiter}${process.env.PATH ?? ""}` };
    // --dry-run: were the check missing, nothing would be installed either.
    const result = await run("npm", ["install", "--dry-run", "--offline", "--no-audit", "--no-fund"], env);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("EBADENGINE");
    expect(result.stderr).toContain('Required: {"node":">=22.18"}');
    expect(result.stderr).toContain("rlfactory@");
  });

  it.each(["start", "test"])("npm %s on Node 20 stops with that line first", async (script) => {
    const env = { ...reporting("20.20.2"), PATH: `${binDir}${delimiter}${process.env.PATH ?? ""}` };
    const result = await run("npm", ["run", "--silent", script], env);
    expect(result.code).not.toBe(0);
    // (npm's own warnings, if any, start with "npm ")
    const lines = result.stderr.split("\n").filter((l) => !l.startsWith("npm "));
    expect(lines[0]).toBe(expectedLine("v20.20.2").trimEnd());
  });
});

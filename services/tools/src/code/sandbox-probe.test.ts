// Where sandboxing does not work: the probe says why and how to fix it, in one line (bwrap missing;
// the kernel refusing user namespaces, for real: the probe runs inside a user namespace that may not
// create further ones), and a server started with sandboxOptional lists its tools as unavailable.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Client } from "@modelcontextprotocol/client";
import { connectHttp, ERAS } from "@rlfactory/test-support/mcp-client";
import { type HttpServing, UNAVAILABLE_META_KEY } from "@rlfactory/toolkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeSandbox } from "./code-sandbox.ts";
import { createCodeServer } from "./code-server.ts";
import { locateExecutable, SandboxUnavailable } from "./sandbox-probe.ts";

const run = promisify(execFile);
const MISSING = "/nonexistent/bwrap";
const MISSING_REASON =
  "the code sandbox needs bubblewrap (/nonexistent/bwrap does not exist): install it (apt-get install bubblewrap) and restart";

describe("locating bwrap", () => {
  const dir = mkdtempSync(join(tmpdir(), "rlf-locate-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("finds a name on PATH, and a path as given; nothing where there is none", () => {
    symlinkSync(process.execPath, join(dir, "node"));
    expect(locateExecutable("node", `/nonexistent:${dir}`)).toBe(join(dir, "node"));
    expect(locateExecutable("bwrap", dir)).toBeUndefined();
    expect(locateExecutable("node", "relative/dir")).toBeUndefined();
    expect(locateExecutable(process.execPath, "")).toBe(process.execPath);
    expect(locateExecutable(MISSING)).toBeUndefined();
  });
});

describe("the sandbox probe", () => {
  it("without bwrap: SandboxUnavailable, saying how to install it", async () => {
    const started = CodeSandbox.start({ bwrapPath: MISSING, concurrency: 1 });
    await expect(started).rejects.toBeInstanceOf(SandboxUnavailable);
    await expect(started).rejects.toThrow(MISSING_REASON);
    await expect(createCodeServer({ bwrapPath: MISSING, concurrency: 1 })).rejects.toThrow(MISSING_REASON);
  });

  it("finds bwrap on the server's PATH, and says so when PATH has none", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rlf-no-bwrap-"));
    try {
      const script = [
        `const { CodeSandbox } = await import(${JSON.stringify(new URL("./code-sandbox.ts", import.meta.url).href)});`,
        "const sandbox = new CodeSandbox({ concurrency: 1, uidBase: 61_700 });",
        "console.log(JSON.stringify({ bwrap: sandbox.settings.bwrapPath, reason: (await sandbox.check()) ?? null }));",
      ].join("\n");
      const probe = async (PATH: string) => {
        const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], {
          env: { ...process.env, PATH },
        });
        return JSON.parse(stdout) as { bwrap: string; reason: string | null };
      };
      expect(await probe(dir)).toEqual({
        bwrap: "bwrap",
        reason:
          "the code sandbox needs bubblewrap (no bwrap on PATH): install it (apt-get install bubblewrap) and restart",
      });
      expect(await probe(`${dir}:${process.env.PATH ?? ""}`)).toEqual({
        bwrap: locateExecutable("bwrap"),
        reason: null,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("where the kernel refuses user namespaces: says so, with bwrap's own words and the fix", async () => {
    // The probe runs as uid 1000 in a user namespace that may not create more (--disable-userns):
    // the sandbox's bwrap then fails exactly as it does where unprivileged user namespaces are off.
    const script = [
      `const { CodeSandbox } = await import(${JSON.stringify(new URL("./code-sandbox.ts", import.meta.url).href)});`,
      "console.log(await new CodeSandbox({ concurrency: 1 }).check());",
    ].join("\n");
    const bwrap = locateExecutable("bwrap") ?? "bwrap";
    const { stdout } = await run(bwrap, [
      ...["--dev-bind", "/", "/", "--unshare-user", "--disable-userns", "--uid", "1000", "--gid", "1000"],
      ...["--", process.execPath, "--input-type=module", "-e", script],
    ]);
    expect(stdout.trim()).toMatch(
      /^the code sandbox needs user namespaces, which bubblewrap cannot create here \(bwrap: [^\n]*namespace[^\n]*\): allow unprivileged ones \(sysctl user\.max_user_namespaces > 0 and kernel\.unprivileged_userns_clone=1; Ubuntu 23\.10\+: kernel\.apparmor_restrict_unprivileged_userns=0\), or run the server as root, and restart$/,
    );
  });
});

describe("a code server with sandboxOptional where sandboxing does not work", () => {
  let serving: HttpServing;
  beforeAll(async () => {
    const server = await createCodeServer({ bwrapPath: MISSING, concurrency: 1, sandboxOptional: true });
    serving = await server.serveHttp({ port: 0 });
  });
  afterAll(async () => {
    await serving.close();
  });

  for (const era of ERAS) {
    describe(`over HTTP, era ${era}`, () => {
      let client: Client;
      beforeAll(async () => {
        client = await connectHttp(serving.url, era);
      });
      afterAll(async () => {
        await client.close();
      });

      it("lists run_code and run_tests, marked unavailable with the reason", async () => {
        const { tools } = await client.listTools();
        expect(tools.map((t) => [t.name, t._meta?.[UNAVAILABLE_META_KEY]])).toEqual([
          ["run_code", MISSING_REASON],
          ["run_tests", MISSING_REASON],
        ]);
      });

      it("answers a call with a JSON-RPC error carrying the reason (never a run)", async () => {
        await expect(
          client.callTool({ name: "run_code", arguments: { code: "print(1)", language: "python" } }),
        ).rejects.toThrow(`run_code is unavailable: ${MISSING_REASON}`);
      });
    });
  }

  it("answers SandboxFusion's POST /run_code with 503 and the reason", async () => {
    const res = await fetch(new URL("/run_code", serving.url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code: "print(1)", language: "python" }),
    });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ status: "SandboxError", message: MISSING_REASON });
  });
});

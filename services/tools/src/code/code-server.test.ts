// The `code` tool server over MCP (HTTP in both protocol eras, and stdio) and its SandboxFusion
// `/run_code` route, with real sandboxed runs.
import { execFileSync } from "node:child_process";
import type { Client } from "@modelcontextprotocol/client";
import { connectHttp, connectStdio, ERAS } from "@rlfactory/test-support/mcp-client";
import { waitFor } from "@rlfactory/test-support/wait-for";
import type { HttpServing } from "@rlfactory/toolkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeServerEntry } from "./index.ts";

const UID_BASE = 61_100;
const asRoot = process.getuid?.() === 0;
const b64 = (text: string) => Buffer.from(text).toString("base64");

/** Sandboxed Python programs running under the server's slot uids (2 slots). */
function runningPrograms(): string[] {
  try {
    const out = execFileSync("ps", ["-o", "stat=,args=", "-u", `${UID_BASE},${UID_BASE + 1}`], {
      encoding: "utf8",
    });
    return out.split("\n").filter((line) => /^\s*[^Z\s]\S*\s+\/usr\/bin\/python3 main\.py$/.test(line));
  } catch {
    return [];
  }
}

describe("code tool server", () => {
  let serving: HttpServing;
  beforeAll(async () => {
    const server = await codeServerEntry.create({ concurrency: "2", "uid-base": String(UID_BASE) });
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

      it("lists run_code and run_tests as read-only, not idempotent, closed-world", async () => {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(["run_code", "run_tests"]);
        for (const tool of tools) {
          expect(tool.annotations).toEqual({
            readOnlyHint: true,
            idempotentHint: false,
            openWorldHint: false,
          });
        }
        expect(tools[0]?.inputSchema).toMatchObject({
          required: ["code", "language"],
          properties: { language: { enum: ["python", "javascript"] }, run_timeout: { maximum: 60 } },
        });
      });

      it("runs code with stdin and files, answering structured output and a text rendering", async () => {
        const result = await client.callTool({
          name: "run_code",
          arguments: {
            code: "import sys\nprint(open('n.txt').read().strip(), sys.stdin.read().strip())",
            language: "python",
            stdin: "world",
            files: { "n.txt": b64("hello\n") },
          },
        });
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toMatchObject({
          status: "ok",
          return_code: 0,
          stdout: "hello world\n",
          stderr: "",
          truncated: false,
        });
        expect(result.content).toEqual([
          {
            type: "text",
            text: expect.stringMatching(/^status: ok, exit code 0, [\d.]+ s\nstdout:\nhello world\n$/),
          },
        ]);
      });

      it("reports a timed-out run as status timeout, not as a tool error", async () => {
        const result = await client.callTool({
          name: "run_code",
          arguments: { code: "while(true){}", language: "javascript", run_timeout: 0.5 },
        });
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toMatchObject({ status: "timeout", return_code: null });
      });

      it("rejects bad arguments as tool errors", async () => {
        const ruby = await client.callTool({
          name: "run_code",
          arguments: { code: "puts 1", language: "ruby" },
        });
        expect(ruby).toMatchObject({ isError: true });
        const traversal = await client.callTool({
          name: "run_code",
          arguments: { code: "print(1)", language: "python", files: { "../x": b64("x") } },
        });
        expect(traversal).toMatchObject({
          isError: true,
          content: [{ type: "text", text: expect.stringContaining("files") }],
        });
        const clash = await client.callTool({
          name: "run_code",
          arguments: { code: "print(1)", language: "python", files: { "main.py": b64("x") } },
        });
        expect(clash).toMatchObject({
          isError: true,
          content: [
            { type: "text", text: "file main.py clashes with the program file or another file's directory" },
          ],
        });
      });

      it("counts the test cases a program passes", async () => {
        const result = await client.callTool({
          name: "run_tests",
          arguments: {
            code: "a, b = map(int, input().split())\nprint(a // b)",
            language: "python",
            tests: [
              { stdin: "6 3", expected_stdout: "2" },
              { stdin: "7 2\n", expected_stdout: "3  \n\n" }, // trailing whitespace is ignored
              { stdin: "9 3", expected_stdout: "4" }, // wrong expectation
              { stdin: "1 0", expected_stdout: "0" }, // ZeroDivisionError
            ],
          },
        });
        expect(result.structuredContent).toMatchObject({
          passed: 2,
          total: 4,
          results: [
            { passed: true, status: "ok", stdout: "2\n" },
            { passed: true, status: "ok", stdout: "3\n" },
            { passed: false, status: "ok", stdout: "3\n" },
            { passed: false, status: "runtime_error", stderr: expect.stringContaining("ZeroDivisionError") },
          ],
        });
        expect((result.content as Array<{ text: string }>)[0]?.text).toMatch(
          /^2\/4 tests passed\n#1: passed/,
        );
      });
    });
  }

  it.skipIf(!asRoot)("kills the run when the client cancels the call", async () => {
    const client = await connectHttp(serving.url, "2025-11-25");
    try {
      const controller = new AbortController();
      const call = client.callTool(
        {
          name: "run_code",
          arguments: { code: "import time\ntime.sleep(30)", language: "python", run_timeout: 30 },
        },
        { signal: controller.signal },
      );
      await waitFor(() => runningPrograms().length === 1, 5_000, "the program to start");
      controller.abort("test cancels");
      await expect(call).rejects.toThrow();
      await waitFor(() => runningPrograms().length === 0, 5_000, "the program to be killed");
    } finally {
      await client.close();
    }
  });

  describe("SandboxFusion POST /run_code", () => {
    const post = async (body: unknown) => {
      const res = await fetch(new URL("/run_code", serving.url), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    it("answers a finished run in SandboxFusion's shape", async () => {
      const { status, body } = await post({
        code: "import sys\nprint(sys.stdin.read() + open('f.txt').read())",
        language: "python",
        stdin: "in+",
        files: { "f.txt": b64("file") },
        run_timeout: 5,
        memory_limit_MB: -1,
        compile_timeout: 10,
      });
      expect(status).toBe(200);
      expect(body).toMatchObject({
        status: "Success",
        message: "",
        compile_result: null,
        run_result: { status: "Finished", return_code: 0, stdout: "in+file\n", stderr: "" },
      });
      expect(body.run_result).toHaveProperty("execution_time", expect.any(Number));
    });

    it("maps failures: a non-zero exit, a time limit, Node as `nodejs`", async () => {
      const failed = await post({ code: "process.exit(3)", language: "nodejs" });
      expect(failed.body).toMatchObject({
        status: "Failed",
        run_result: { status: "Finished", return_code: 3 },
      });
      const slow = await post({ code: "import time\ntime.sleep(10)", language: "python", run_timeout: 0.5 });
      expect(slow.body).toMatchObject({
        status: "Failed",
        run_result: { status: "TimeLimitExceeded", return_code: null },
      });
    });

    it("answers 400 to invalid requests", async () => {
      expect((await post({ code: "print(1)" })).status).toBe(400);
      expect(await post({ code: "print(1)", language: "cpp" })).toMatchObject({
        status: 400,
        body: { error: expect.stringContaining("supported languages") },
      });
      expect((await post({ code: "print(1)", language: "python", run_timeout: 3600 })).status).toBe(400);
      expect(
        (await post({ code: "print(1)", language: "python", files: { "/etc/x": b64("x") } })).status,
      ).toBe(400);
    });
  });
});

describe("code tool server over stdio", () => {
  it("runs code", async () => {
    const script = [
      `const { createCodeServer } = await import(${JSON.stringify(new URL("./index.ts", import.meta.url).href)});`,
      `const server = await createCodeServer({ concurrency: 1, uidBase: ${UID_BASE + 10} });`,
      "await server.serveStdio();",
    ].join("\n");
    const client = await connectStdio(
      { command: process.execPath, args: ["--input-type=module", "-e", script], stderr: "ignore" },
      "2026-07-28",
    );
    try {
      const result = await client.callTool({
        name: "run_code",
        arguments: { code: "console.log([1, 2, 3].map((x) => x * x).join(' '))", language: "javascript" },
      });
      expect(result.structuredContent).toMatchObject({ status: "ok", stdout: "1 4 9\n" });
    } finally {
      await client.close();
    }
  });
});

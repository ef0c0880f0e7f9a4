// A newcomer's first run on a machine without bubblewrap: `npm start` (rlf stack) runs with a PATH
// that holds only `node`, so the code tool server's real probe finds no bwrap. The stack still comes
// up: every bundled tool is listed, the code tools answer a typed UNAVAILABLE with the reason, the
// stack says once how to enable them, /readyz shows it, and the other tools work.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT, stopChild, waitFor } from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const RLF = join(ROOT, "services/cli/bin/rlf.js");
const ADMIN = "http://127.0.0.1:8080";
const GATEWAY = "127.0.0.1:50051";
const REASON =
  "the code sandbox needs bubblewrap (no bwrap on PATH): install it (apt-get install bubblewrap) and restart";
/** Every tool of the bundled tool servers (search, calculator, code, sql), as the gateway names them. */
const ALL_TOOLS = [
  "calculator__calculate",
  "code__run_code",
  "code__run_tests",
  "search__search",
  "sql__describe_table",
  "sql__list_tables",
  "sql__query",
  "sql__verify",
];

interface Readyz {
  status: string;
  upstreams: { name: string; state: string; unavailable_tools: { name: string; reason: string }[] }[];
}

describe("npm start without bubblewrap", () => {
  const bin = mkdtempSync(join(tmpdir(), "rlf-no-bwrap-"));
  symlinkSync(process.execPath, join(bin, "node"));
  const env = { ...process.env, PATH: bin };
  let stack: ChildProcess;
  let output = "";

  beforeAll(async () => {
    // What `npm start` runs, with a PATH on which there is node and nothing else.
    stack = spawn("node", [RLF, "stack"], {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    for (const stream of [stack.stdout, stack.stderr])
      stream?.on("data", (d: Buffer) => {
        output += d.toString();
      });
    await waitFor(
      () => {
        if (stack.exitCode !== null) throw new Error(`rlf stack exited (${stack.exitCode})`);
        // the summary ends with the unavailable tools' line; a pipe may hand it over in more than one read
        return output.includes("rlf stack: gateway gRPC") && /rlf stack: .* unavailable: .*\n/.test(output);
      },
      90_000,
      "rlf stack to report the gateway up and the code tools unavailable",
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${output}`);
    });
  }, 120_000);

  afterAll(async () => {
    if (stack?.pid && stack.exitCode === null && stack.signalCode === null) {
      process.kill(-stack.pid, "SIGINT");
      await stopChild(stack, 10_000);
    }
    rmSync(bin, { recursive: true, force: true });
  });

  it("says once, in one line, why the code tools are unavailable and how to enable them", () => {
    const lines = output.split("\n").filter((l) => l.startsWith("rlf stack:"));
    expect(lines.filter((l) => l.includes("unavailable"))).toEqual([
      `rlf stack: code__run_code, code__run_tests unavailable: ${REASON}`,
    ]);
    // the code server came up once and stayed up (no crash loop)
    expect(output).not.toContain("exited");
    // the README quotes the start of that line
    const quoted = /\((`rlf stack: [^`]*?) …`\)/.exec(readFileSync(join(ROOT, "README.md"), "utf8"))?.[1];
    expect(quoted).toBeDefined();
    expect(lines.some((l) => l.startsWith(quoted?.slice(1) ?? "-"))).toBe(true);
  });

  it("prints one human-readable line per server as it becomes ready", () => {
    const servers = [
      ["tool server search", 7001],
      ["tool server calculator", 7002],
      ["tool server code", 7003],
      ["tool server sql", 7004],
      ["judge", 7005],
    ] as const;
    const lines = output.split("\n").filter((l) => l.startsWith("rlf stack: "));
    for (const [name, port] of servers) {
      const ready = lines.filter((l) => l.startsWith(`rlf stack: ${name} ready on 127.0.0.1:${port} (`));
      expect(ready, name).toHaveLength(1);
    }
  });

  it("lists every bundled tool, the code tools included", async () => {
    const { stdout } = await run(process.execPath, [RLF, "tools", "list", "--gateway", GATEWAY, "--json"], {
      env,
    });
    const tools = (JSON.parse(stdout) as { name: string }[]).map((t) => t.name).sort();
    expect(tools).toEqual(ALL_TOOLS);
  });

  it.each([
    ["code__run_code", { code: "print(sum(range(10)))", language: "python" }],
    [
      "code__run_tests",
      { code: "print(input())", language: "python", tests: [{ stdin: "1", expected_stdout: "1" }] },
    ],
  ])("%s answers UNAVAILABLE with the reason, over gRPC and HTTP", async (tool, args) => {
    const call = run(
      process.execPath,
      [RLF, "tools", "call", tool, "--args", JSON.stringify(args), "--gateway", GATEWAY, "--json"],
      { env },
    );
    const failed = (await call.then(
      () => {
        throw new Error(`${tool} succeeded`);
      },
      (err: { code: number; stdout: string }) => err,
    )) as { code: number; stdout: string };
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toMatchObject({
      error_code: "UNAVAILABLE",
      error_message: `${tool}: ${REASON}`,
    });

    const http = await fetch(`${ADMIN}/v1/tools/${tool}:call`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ arguments: args }),
    });
    expect(http.status).toBe(503);
    expect(await http.json()).toMatchObject({
      error_code: "UNAVAILABLE",
      error_message: `${tool}: ${REASON}`,
    });
  });

  it("keeps answering UNAVAILABLE (never a circuit opened by its own refusals)", async () => {
    const codes = [];
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${ADMIN}/v1/tools/code__run_code:call`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ arguments: { code: "print(1)", language: "python" } }),
      });
      codes.push(((await res.json()) as { error_code: string }).error_code);
    }
    expect(codes).toEqual(Array(8).fill("UNAVAILABLE"));
  });

  it("/readyz: ready to serve (200), degraded, with the code tools' reason", async () => {
    const res = await fetch(`${ADMIN}/readyz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Readyz;
    expect(body.status).toBe("degraded");
    expect(body.upstreams.map((u) => [u.name, u.state]).sort()).toEqual([
      ["calculator", "ready"],
      ["code", "ready"],
      ["search", "ready"],
      ["sql", "ready"],
    ]);
    const code = body.upstreams.find((u) => u.name === "code");
    expect(code?.unavailable_tools).toEqual([
      { name: "code__run_code", reason: REASON },
      { name: "code__run_tests", reason: REASON },
    ]);
    for (const u of body.upstreams.filter((u) => u.name !== "code")) expect(u.unavailable_tools).toEqual([]);
  });

  it("the other tools work, and SandboxFusion's /run_code answers 503 with the reason", async () => {
    const calculator = ["calculator__calculate", "--args", '{"expression": "12 * (3 + 4)"}'];
    const { stdout } = await run(
      process.execPath,
      [RLF, "tools", "call", ...calculator, "--gateway", GATEWAY],
      {
        env,
      },
    );
    expect(stdout).toContain("84");
    const res = await fetch("http://127.0.0.1:7003/run_code", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code: "print(1)", language: "python" }),
    });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ status: "SandboxError", message: REASON, run_result: null });
  });
});

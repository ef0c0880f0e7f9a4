// What only the operator decides: the maxima of a run's memory and time (a caller asking for more is
// refused, with the maximum and the flag that sets it, over MCP and over SandboxFusion's /run_code), the
// memory accounting mode; and DNS rebinding: /run_code, like /mcp, refuses a foreign Host header.
import { request } from "node:http";
import type { Client } from "@modelcontextprotocol/client";
import { connectHttp } from "@rlfactory/test-support/mcp-client";
import type { HttpServing } from "@rlfactory/toolkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeServerEntry } from "./index.ts";

const UID_BASE = 61_400;

function postRunCode(port: number, host: string, body: unknown) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/run_code",
        headers: { host, "content-type": "application/json" },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

describe("code server with --max-memory 512 --max-run-timeout 5", () => {
  let serving: HttpServing;
  let client: Client;
  beforeAll(async () => {
    const server = await codeServerEntry.create({
      concurrency: "1",
      "uid-base": String(UID_BASE),
      "max-memory": "512",
      "max-run-timeout": "5",
    });
    serving = await server.serveHttp({ port: 0 });
    client = await connectHttp(serving.url, "2025-11-25");
  });
  afterAll(async () => {
    await client.close();
    await serving.close();
  });

  const program = { code: "print('ran')", language: "python" };

  it("refuses a run_code call asking for more memory or time than the operator allows", async () => {
    const memory = await client.callTool({
      name: "run_code",
      arguments: { ...program, memory_limit_MB: 4096 },
    });
    expect(memory).toMatchObject({
      isError: true,
      content: [
        {
          text: expect.stringContaining(
            "memory_limit_MB is at most 512 on this server (set by its operator with --max-memory)",
          ),
        },
      ],
    });
    const time = await client.callTool({ name: "run_code", arguments: { ...program, run_timeout: 60 } });
    expect(time).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining("run_timeout is at most 5 s on this server") }],
    });
    const within = await client.callTool({
      name: "run_code",
      arguments: { ...program, memory_limit_MB: 512, run_timeout: 5 },
    });
    expect(within).toMatchObject({ structuredContent: { status: "ok", stdout: "ran\n" } });
  });

  it("answers 400 to /run_code asking for more, and runs what is within the maxima", async () => {
    const host = `127.0.0.1:${serving.port}`;
    const memory = await postRunCode(serving.port, host, { ...program, memory_limit_MB: 1024 });
    expect(memory.status).toBe(400);
    expect(memory.body).toContain(
      "memory_limit_MB is at most 512 on this server (set by its operator with --max-memory)",
    );
    expect((await postRunCode(serving.port, host, { ...program, run_timeout: 6 })).status).toBe(400);
    const ok = await postRunCode(serving.port, host, { ...program, memory_limit_MB: 512 });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ status: "Success", run_result: { stdout: "ran\n" } });
  });

  it("refuses /run_code from a page whose DNS name was rebound to loopback (foreign Host), running nothing", async () => {
    const marker = "rebound-run";
    const refused = await postRunCode(serving.port, `attacker.example:${serving.port}`, {
      code: `print('${marker}')`,
      language: "python",
    });
    expect(refused.status).toBe(403);
    expect(refused.body).not.toContain(marker);
    const localhost = await postRunCode(serving.port, `localhost:${serving.port}`, program);
    expect(localhost.status).toBe(200);
  });
});

describe("code server flags", () => {
  it("refuses an unknown --memory-accounting and, by default, a caller's 4096 MiB", async () => {
    expect(() => codeServerEntry.create({ "memory-accounting": "none" })).toThrow(
      "--memory-accounting is one of auto, cgroup, rlimit",
    );
    const server = await codeServerEntry.create({ concurrency: "1", "uid-base": String(UID_BASE + 5) });
    const serving = await server.serveHttp({ port: 0 });
    try {
      const answer = await postRunCode(serving.port, `127.0.0.1:${serving.port}`, {
        code: "print(1)",
        language: "python",
        memory_limit_MB: 4096,
      });
      expect(answer.status).toBe(400);
      expect(answer.body).toContain("memory_limit_MB is at most 1024 on this server");
    } finally {
      await serving.close();
    }
  });
});

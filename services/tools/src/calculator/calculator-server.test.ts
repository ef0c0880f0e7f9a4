// The calculator tool server over MCP (real HTTP on 127.0.0.1), including its resource limits.
import type { Client } from "@modelcontextprotocol/client";
import { connectHttp } from "@rlfactory/test-support/mcp-client";
import type { HttpServing } from "@rlfactory/toolkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolServers } from "../index.ts";
import { createCalculatorServer } from "./calculator-server.ts";

describe("calculator tool server", () => {
  let serving: HttpServing;
  let client: Client;
  beforeAll(async () => {
    // A deadline no expression here reaches, so the memory bomb below always ends out of memory.
    serving = await createCalculatorServer({ timeoutMs: 300_000 }).serveHttp({ port: 0 });
    client = await connectHttp(serving.url, "2025-11-25");
  });
  afterAll(async () => {
    await client.close();
    await serving.close();
  });

  it("is registered as `calculator`", async () => {
    expect((await toolServers.calculator?.create({}))?.name).toBe("calculator");
  });

  it("lists `calculate` as read-only and idempotent", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["calculate"]);
    expect(tools[0]?.annotations).toEqual({ readOnlyHint: true, idempotentHint: true });
    expect(tools[0]?.inputSchema).toMatchObject({
      required: ["expression"],
      properties: { expression: { maxLength: 1000 } },
    });
  });

  it("answers with structured output and `expression = result` text", async () => {
    const result = await client.callTool({ name: "calculate", arguments: { expression: "12 * (3 + 4)" } });
    expect(result.structuredContent).toEqual({ result: 84, expression: "12 * (3 + 4)" });
    expect(result.content).toEqual([{ type: "text", text: "12 * (3 + 4) = 84" }]);
    const units = await client.callTool({ name: "calculate", arguments: { expression: "2 inch to cm" } });
    expect(units.content).toEqual([{ type: "text", text: "2 inch to cm = 5.08 cm" }]);
  });

  it("reports bad expressions and blocked functions as tool errors", async () => {
    expect(await client.callTool({ name: "calculate", arguments: { expression: "x + 1" } })).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "Undefined symbol x" }],
    });
    expect(
      await client.callTool({
        name: "calculate",
        arguments: { expression: "import({ pi: 3 }, { override: true })" },
      }),
    ).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "Function import is not allowed" }],
    });
    expect(
      await client.callTool({ name: "calculate", arguments: { expression: "1".repeat(1001) } }),
    ).toMatchObject({
      isError: true,
      content: [
        { type: "text", text: expect.stringMatching(/^Invalid arguments for tool calculate: expression: /) },
      ],
    });
  });

  it("survives an expression that exhausts the evaluator's memory", async () => {
    expect(
      await client.callTool({ name: "calculate", arguments: { expression: "zeros(100000, 100000)" } }),
    ).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "The expression needs too much memory" }],
    });
    const after = await client.callTool({ name: "calculate", arguments: { expression: "2 ^ 10" } });
    expect(after.structuredContent).toEqual({ result: 1024, expression: "2 ^ 10" });
  }, 120_000);

  it("never shows a function's source", async () => {
    const call = async (expression: string) => {
      const result = await client.callTool({ name: "calculate", arguments: { expression } });
      return (result.content as { text: string }[])[0]?.text ?? "";
    };
    expect(await call("cos.toString()")).toBe("cos.toString() = function cos");
    expect(await call('cos["toString"]()')).toBe('cos["toString"]() = function cos');
    expect(await call("sqrt.toString()")).toBe("sqrt.toString() = function sqrt");
    expect(await call("cos.toString")).toBe('Cannot access method "toString" as a property');
    expect(await call("cos")).toBe("The result is a function, not a value");
    expect(await call("cos.valueOf()")).toBe("The result is a function, not a value");
    expect(await call("cos.syntax")).toBe('No access to property "syntax"');
    expect(await call("string(cos)")).toBe("string(cos) = function cos");
    expect(await call("string(map)")).toBe("string(map) = function map");
    expect(await call("cos.toLocaleString()")).toBe("cos.toLocaleString() = function cos");
    expect(await call("string([cos, add])")).toBe('string([cos, add]) = ["function cos", "function add"]');
    expect(await call("map([0], cos)")).toBe("map([0], cos) = [1]");
    // The disabled functions are anonymous stubs: their name is not even shown.
    expect(await call("evaluate.toString()")).toBe("evaluate.toString() = function");
  });

  it("computes exact fractions and 64-digit decimals on a worker that has just started", async () => {
    const call = async (expression: string, number: string) =>
      (await client.callTool({ name: "calculate", arguments: { expression, number } })).structuredContent;
    expect(await call("1/3 + 1/6", "fraction")).toEqual({ result: "1/2", expression: "1/3 + 1/6" });
    expect(await call("0.1 + 0.2", "bignumber")).toEqual({ result: "0.3", expression: "0.1 + 0.2" });
  });
});

describe("calculator tool server limits", () => {
  it("answers past-deadline expressions with a typed error and keeps serving", async () => {
    const serving = await createCalculatorServer({ timeoutMs: 1_000, workers: 2 }).serveHttp({ port: 0 });
    const client = await connectHttp(serving.url, "2025-11-25");
    try {
      const expression = Array.from({ length: 30 }, () => "isPrime(9007199254740881)").join(" + ");
      expect(await client.callTool({ name: "calculate", arguments: { expression } })).toMatchObject({
        isError: true,
        content: [{ type: "text", text: "The expression exceeded the time limit of 1000 ms" }],
      });
      const after = await client.callTool({ name: "calculate", arguments: { expression: "2+2" } });
      expect(after.structuredContent).toEqual({ result: 4, expression: "2+2" });
    } finally {
      await client.close();
      await serving.close();
    }
  }, 60_000);

  it("takes --workers and --timeout-ms, and refuses bad values", async () => {
    const entry = toolServers.calculator;
    expect((await entry?.create({ workers: "2", "timeout-ms": "500" }))?.name).toBe("calculator");
    expect(() => entry?.create({ workers: "0" })).toThrow("workers:");
    expect(() => entry?.create({ "timeout-ms": "soon" })).toThrow("--timeout-ms must be a whole number");
  });
});

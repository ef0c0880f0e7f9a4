// The testbed tool server (built with this toolkit) as a child process over stdio, in both eras.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client, Tool } from "@modelcontextprotocol/client";
import { deferred } from "@rlfactory/test-support/deferred";
import { connectStdio, ERAS } from "@rlfactory/test-support/mcp-client";
import { TESTBED_SERVER_PATH, waitForTestbedEvent } from "@rlfactory/test-support/testbed-process";
import { TINY_PNG_BASE64 } from "@rlfactory/test-support/testbed-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "rlf-toolkit-stdio-"));

for (const era of ERAS) {
  describe(`stdio, protocol ${era}`, () => {
    const events = join(dir, `events-${era}.jsonl`);
    const listChanged = deferred<Tool[]>();
    let client: Client;

    beforeAll(async () => {
      client = await connectStdio(
        {
          command: process.execPath,
          args: [TESTBED_SERVER_PATH, "--stdio"],
          env: { ...process.env, TESTBED_EVENTS: events } as Record<string, string>,
          stderr: "ignore",
        },
        era,
        {
          listChanged: {
            tools: {
              debounceMs: 0,
              onChanged: (error, tools) =>
                error ? listChanged.reject(error) : listChanged.resolve(tools ?? []),
            },
          },
        },
      );
    });
    afterAll(async () => {
      await client.close();
    });

    it("lists the testbed tools with their annotations", async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual([
        "sleep",
        "rendezvous",
        "echo",
        "fail",
        "big",
        "image",
        "pid",
        "add_tool",
        "not_idempotent",
      ]);
      expect(tools.find((t) => t.name === "echo")?.annotations).toEqual({
        readOnlyHint: true,
        idempotentHint: true,
      });
      expect(tools.find((t) => t.name === "not_idempotent")?.annotations).toBeUndefined();
    });

    it("returns structured output plus a JSON text rendering", async () => {
      const result = await client.callTool({
        name: "echo",
        arguments: { value: { nested: [1, "two", null] } },
      });
      expect(result.structuredContent).toEqual({ value: { nested: [1, "two", null] } });
      expect(result.content).toEqual([{ type: "text", text: '{"value":{"nested":[1,"two",null]}}' }]);
    });

    it("returns plain text and image content", async () => {
      const big = await client.callTool({ name: "big", arguments: { bytes: 5 } });
      expect(big.content).toEqual([{ type: "text", text: "xxxxx" }]);
      const image = await client.callTool({ name: "image", arguments: {} });
      expect(image.content).toEqual([{ type: "image", data: TINY_PNG_BASE64, mimeType: "image/png" }]);
    });

    it("reports ToolError and invalid arguments as isError results", async () => {
      expect(await client.callTool({ name: "fail", arguments: { message: "nope" } })).toMatchObject({
        isError: true,
        content: [{ type: "text", text: "nope" }],
      });
      expect(await client.callTool({ name: "sleep", arguments: { ms: -1 } })).toMatchObject({
        isError: true,
        content: [{ type: "text", text: expect.stringMatching(/^Invalid arguments for tool sleep: ms: /) }],
      });
    });

    it("propagates cancellation to the handler", async () => {
      const controller = new AbortController();
      const tag = `cancel-${era}`;
      const call = client.callTool(
        { name: "sleep", arguments: { ms: 60_000, tag } },
        { signal: controller.signal },
      );
      await waitForTestbedEvent(events, (e) => e.event === "executed" && e.args.tag === tag);
      controller.abort();
      await expect(call).rejects.toThrow();
      const cancelled = await waitForTestbedEvent(
        events,
        (e) => e.event === "cancelled" && e.args.tag === tag,
      );
      expect(cancelled.tool).toBe("sleep");
    });

    it("announces tools added at runtime", async () => {
      expect(await client.callTool({ name: "add_tool", arguments: { name: "fresh" } })).toMatchObject({
        structuredContent: { added: "fresh" },
      });
      expect((await listChanged.promise).map((t) => t.name)).toContain("fresh");
      expect((await client.callTool({ name: "fresh", arguments: {} })).structuredContent).toEqual({
        added: "fresh",
      });
      expect(await client.callTool({ name: "add_tool", arguments: { name: "fresh" } })).toMatchObject({
        isError: true,
      });
    });

    it("counts non-idempotent runs per process", async () => {
      const first = await client.callTool({ name: "not_idempotent", arguments: {} });
      const second = await client.callTool({ name: "not_idempotent", arguments: {} });
      expect((second.structuredContent as { count: number }).count).toBe(
        (first.structuredContent as { count: number }).count + 1,
      );
    });
  });
}

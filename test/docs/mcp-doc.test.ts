// docs/mcp.md names the reserved episode tools, their argument, and the `_meta` keys a tools/call
// reads; each is checked against the gateway's constants and its real MCP tool list, so the doc
// cannot drift.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  CACHE_META_KEY,
  DEADLINE_META_KEY,
  EPISODE_ARG,
  EPISODE_END_TOOL,
  EPISODE_FORK_TOOL,
  EPISODE_SNAPSHOT_TOOL,
  EPISODE_START_TOOL,
  TRAJECTORY_META_KEY,
} from "@rlfactory/gateway";
import { type InProcessGateway, startTestGateway } from "@rlfactory/test-support/gateway-harness";
import { codeSpans, markdownTable, readDoc } from "@rlfactory/test-support/markdown";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const doc = readDoc("docs/mcp.md");

describe("docs/mcp.md", () => {
  let gw: InProcessGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ servers: {} });
  });
  afterAll(() => gw?.stop());

  it("lists the reserved episode tools with the arguments their listed schemas take", async () => {
    const rows = markdownTable(doc, "tool");
    const documented = rows.map((r) => codeSpans(r.tool!)[0]);
    expect(documented).toEqual([
      EPISODE_START_TOOL,
      EPISODE_FORK_TOOL,
      EPISODE_SNAPSHOT_TOOL,
      EPISODE_END_TOOL,
    ]);
    const client = new Client({ name: "doc-test", version: "0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.gateway.adminUrl}/mcp`)));
    try {
      const { tools } = await client.listTools();
      for (const row of rows) {
        const tool = tools.find((t) => t.name === codeSpans(row.tool!)[0]);
        expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(codeSpans(row.arguments!));
      }
    } finally {
      await client.close();
    }
    expect(doc).toContain(`the \`${EPISODE_ARG}\` argument`);
  });

  it("names the _meta keys a tools/call reads", () => {
    const keys = markdownTable(doc, "`_meta` key").map((r) => codeSpans(r["`_meta` key"]!)[0]);
    expect(keys).toEqual([DEADLINE_META_KEY, CACHE_META_KEY, TRAJECTORY_META_KEY, "traceparent"]);
  });
});

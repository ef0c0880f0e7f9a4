// `sqlServerEntry` (what `rlf tool sql` runs) as a child process over stdio, in both protocol eras,
// on the sample databases shipped in services/tools/data/sql; and its command-line options.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { connectStdio, ERAS } from "@rlfactory/test-support/mcp-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlServerEntry } from "./index.ts";

const ENTRY_URL = new URL("./index.ts", import.meta.url).href;
const SERVE = `import { sqlServerEntry } from ${JSON.stringify(ENTRY_URL)};
const server = await sqlServerEntry.create(JSON.parse(process.argv[1]));
await server.serveStdio();`;

for (const era of ERAS) {
  describe(`sql tool server over stdio, protocol ${era}`, () => {
    let client: Client;
    beforeAll(async () => {
      client = await connectStdio(
        {
          command: process.execPath,
          args: ["--input-type=module", "-e", SERVE, JSON.stringify({ "timeout-ms": "400" })],
          stderr: "ignore",
        },
        era,
      );
    });
    afterAll(async () => {
      await client?.close();
    });

    it("serves the shipped sample databases", async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["list_tables", "describe_table", "query", "verify"]);
      expect(await client.callTool({ name: "list_tables", arguments: { db: "pets_1" } })).toMatchObject({
        structuredContent: { tables: ["Student", "Has_Pet", "Pets"] },
      });
      const result = await client.callTool({
        name: "query",
        arguments: {
          db: "pets_1",
          sql: "SELECT PetType, count(*) AS n FROM Pets GROUP BY PetType ORDER BY PetType",
        },
      });
      expect(result.content).toEqual([{ type: "text", text: "PetType | n\ncat | 1\ndog | 2\n(2 rows)" }]);
    });

    it("verifies, and times out per --timeout-ms", async () => {
      const verify = await client.callTool({
        name: "verify",
        arguments: {
          db: "concert_singer",
          gold_sql: "SELECT count(*) FROM concert",
          predicted_sql: "SELECT count(concert_ID) FROM concert",
        },
      });
      expect(verify.structuredContent).toEqual({
        match: true,
        compare: "bag",
        predicted_rows: 1,
        gold_rows: 1,
        error: null,
      });
      const slow = await client.callTool({
        name: "query",
        arguments: {
          db: "pets_1",
          sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
        },
      });
      expect(slow).toMatchObject({ isError: true, content: [{ text: "query timed out after 400 ms" }] });
      expect(
        await client.callTool({
          name: "query",
          arguments: { db: "pets_1", sql: "SELECT count(*) FROM Pets" },
        }),
      ).toMatchObject({ structuredContent: { rows: [[3]] } });
    });
  });
}

describe("sqlServerEntry options", () => {
  it("rejects a bad --timeout-ms and an unreadable --db-dir", () => {
    expect(() => sqlServerEntry.create({ "timeout-ms": "soon" })).toThrow(
      /--timeout-ms must be a whole number/,
    );
    expect(() => sqlServerEntry.create({ "timeout-ms": "0" })).toThrow(/timeout-ms/);
    const missing = join(mkdtempSync(join(tmpdir(), "rlf-sql-")), "missing");
    expect(() => sqlServerEntry.create({ "db-dir": missing })).toThrow(/cannot read the database directory/);
  });

  it("rejects bad --processes and --per-caller", () => {
    expect(() => sqlServerEntry.create({ processes: "0" })).toThrow(/--processes must be at least 1/);
    expect(() => sqlServerEntry.create({ "per-caller": "two" })).toThrow(
      /--per-caller must be a whole number/,
    );
    expect(() => sqlServerEntry.create({ processes: "2", "per-caller": "3" })).toThrow(
      "--per-caller (3) must not exceed --processes (2)",
    );
  });
});

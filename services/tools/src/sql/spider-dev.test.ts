// `verify` on questions of the Spider dev set: each gold query matches itself, and no longer
// matches once its last row is dropped.
import { existsSync, readFileSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/client";
import { connectHttp } from "@rlfactory/test-support/mcp-client";
import { haveSharedData, sharedDataPath } from "@rlfactory/test-support/shared-data";
import type { HttpServing } from "@rlfactory/toolkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createSqlServer } from "./sql-server.ts";

const SPIDER = `${sharedDataPath("spider")}/`;
const haveSpider = haveSharedData("the Spider dev-set test", "spider/dev.json", "spider/database");

const Example = z.object({ db_id: z.string(), question: z.string(), query: z.string() });
/** Every 25th usable question (wta_1's database is not in the snapshot): about 40 in all. */
const EVERY = 25;

describe.skipIf(!haveSpider)("verify on Spider dev questions", () => {
  let serving: HttpServing;
  let client: Client;
  beforeAll(async () => {
    serving = await createSqlServer({ dbDir: `${SPIDER}database`, timeoutMs: 5_000 }).serveHttp({ port: 0 });
    client = await connectHttp(serving.url, "2026-07-28");
  });
  afterAll(async () => {
    await client?.close();
    await serving?.close();
  });

  it("matches each gold query with itself and not with a row dropped", async () => {
    const examples = z
      .array(Example)
      .parse(JSON.parse(readFileSync(`${SPIDER}dev.json`, "utf8")))
      .filter((e) => e.db_id !== "wta_1" && existsSync(`${SPIDER}database/${e.db_id}`))
      .filter((_, i) => i % EVERY === 0);
    expect(examples.length).toBeGreaterThan(30);
    let perturbed = 0;
    for (const { db_id, query } of examples) {
      const gold = query.trim().replace(/;$/, "");
      const same = await client.callTool({
        name: "verify",
        arguments: { db: db_id, gold_sql: gold, predicted_sql: gold },
      });
      expect({ gold, result: same.structuredContent }).toMatchObject({
        gold,
        result: { match: true, error: null },
      });
      const goldRows = (same.structuredContent as { gold_rows: number }).gold_rows;
      if (goldRows === 0) continue;
      const dropLast = `SELECT * FROM (${gold}) LIMIT ${goldRows - 1}`;
      const other = await client.callTool({
        name: "verify",
        arguments: { db: db_id, gold_sql: gold, predicted_sql: dropLast },
      });
      expect({ gold, result: other.structuredContent }).toMatchObject({
        gold,
        result: { match: false, error: null, predicted_rows: goldRows - 1, gold_rows: goldRows },
      });
      perturbed++;
    }
    expect(perturbed).toBeGreaterThan(examples.length / 2);
  });
});

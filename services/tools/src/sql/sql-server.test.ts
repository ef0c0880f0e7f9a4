// The sql tool server over MCP (real HTTP on 127.0.0.1) on real Spider databases: its tools,
// the execution-match conventions of `verify`, refusal of anything but a read-only query, and the
// time limit.
import type { Client } from "@modelcontextprotocol/client";
import { connectHttp } from "@rlfactory/test-support/mcp-client";
import { haveSharedData, sharedDataPath } from "@rlfactory/test-support/shared-data";
import type { HttpServing } from "@rlfactory/toolkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqlServer } from "./sql-server.ts";

const SPIDER_DBS = `${sharedDataPath("spider/database")}/`;
const haveSpider = haveSharedData("the sql server tests", "spider/database");

const TIMEOUT_MS = 300;
const SLOW =
  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1e12) SELECT count(*) FROM c";

describe.skipIf(!haveSpider)("sql tool server (Spider databases)", () => {
  let serving: HttpServing;
  let client: Client;
  beforeAll(async () => {
    serving = await createSqlServer({ dbDir: SPIDER_DBS, timeoutMs: TIMEOUT_MS }).serveHttp({ port: 0 });
    client = await connectHttp(serving.url, "2025-11-25");
  });
  afterAll(async () => {
    await client?.close();
    await serving?.close();
  });

  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
  const text = (result: Awaited<ReturnType<typeof call>>) => (result.content as { text: string }[])[0]?.text;
  const verify = async (args: Record<string, unknown>) => {
    const result = await call("verify", { db: "concert_singer", ...args });
    expect(result.isError).toBeFalsy();
    return result.structuredContent as { match: boolean; compare: string; error: string | null };
  };
  const countSingers = async () =>
    (await call("query", { db: "concert_singer", sql: "SELECT count(*) FROM singer" })).structuredContent;

  it("lists four read-only, idempotent tools", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["list_tables", "describe_table", "query", "verify"]);
    for (const tool of tools) expect(tool.annotations).toEqual({ readOnlyHint: true, idempotentHint: true });
  });

  it("lists tables and describes one, case-insensitively, with keys and first rows", async () => {
    const tables = await call("list_tables", { db: "concert_singer" });
    expect(tables.structuredContent).toEqual({
      tables: ["stadium", "singer", "concert", "singer_in_concert"],
    });
    const described = await call("describe_table", { db: "concert_singer", table: "SINGER_IN_CONCERT" });
    expect(described.structuredContent).toEqual({
      table: "singer_in_concert",
      columns: [
        { name: "concert_ID", type: "INT", notnull: false, pk: true, default: null },
        { name: "Singer_ID", type: "TEXT", notnull: false, pk: true, default: null },
      ],
      foreign_keys: [
        { column: "Singer_ID", ref_table: "singer", ref_column: "Singer_ID" },
        { column: "concert_ID", ref_table: "concert", ref_column: "concert_ID" },
      ],
      sample_rows: [
        [1, "2"],
        [1, "3"],
        [1, "5"],
      ],
    });
    expect(text(described)).toContain("Singer_ID -> singer(Singer_ID)");
    expect(await call("describe_table", { db: "concert_singer", table: "nope" })).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "no such table: nope" }],
    });
  });

  it("runs a query and shows it as a compact table, capped at max_rows", async () => {
    const result = await call("query", {
      db: "concert_singer",
      sql: "SELECT Name, Age FROM singer WHERE Country = 'France' ORDER BY Age",
    });
    expect(result.structuredContent).toEqual({
      columns: ["Name", "Age"],
      rows: [
        ["Tribal King", 25],
        ["Justin Brown", 29],
        ["Rose White", 41],
        ["John Nizinik", 43],
      ],
      row_count: 4,
      truncated: false,
    });
    expect(text(result)).toBe(
      "Name | Age\nTribal King | 25\nJustin Brown | 29\nRose White | 41\nJohn Nizinik | 43\n(4 rows)",
    );
    // "Double-quoted" strings, as SQLite usually takes them (and Spider's gold queries write them).
    const quoted = await call("query", {
      db: "concert_singer",
      sql: 'SELECT Name FROM singer WHERE Country = "Netherlands"',
    });
    expect(quoted.structuredContent).toMatchObject({ rows: [["Joe Sharp"]] });
    const capped = await call("query", { db: "concert_singer", sql: "SELECT Name FROM singer", max_rows: 2 });
    expect(capped.structuredContent).toMatchObject({ row_count: 2, truncated: true });
    expect(text(capped)).toMatch(/\(2 rows shown; the result has more/);
    expect(await call("query", { db: "concert_singer", sql: "SELECT 1", max_rows: 1001 })).toMatchObject({
      isError: true,
    });
    expect(await call("query", { db: "concert_singer", sql: "SELECT nme FROM singer" })).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "no such column: nme" }],
    });
  });

  it("names databases only by id", async () => {
    for (const db of [
      "../database/concert_singer",
      "/etc/passwd",
      "concert_singer/concert_singer.sqlite",
      "nope",
    ]) {
      const result = await call("list_tables", { db });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^unknown database .*; available: .*concert_singer/);
    }
  });

  it("refuses anything but a single read-only query, and changes nothing", async () => {
    const before = await countSingers();
    const statements = [
      "INSERT INTO singer (Singer_ID, Name) VALUES (99, 'x')",
      "UPDATE singer SET Age = 0",
      "DELETE FROM singer",
      "DROP TABLE singer",
      "CREATE TABLE t (x)",
      "CREATE TEMP TABLE t (x)",
      "WITH x AS (SELECT 1) DELETE FROM singer",
      "ATTACH DATABASE ':memory:' AS other",
      "PRAGMA query_only = OFF",
      "PRAGMA journal_mode = WAL",
      "PRAGMA table_info(singer)",
      "BEGIN",
      "VACUUM",
      "SELECT 1; DELETE FROM singer",
      "/* comment */ DELETE FROM singer",
    ];
    for (const sql of statements) {
      const result = await call("query", { db: "concert_singer", sql });
      expect({ sql, isError: result.isError, text: text(result) }).toEqual({
        sql,
        isError: true,
        text: expect.stringMatching(/^only read-only SELECT statements are allowed/),
      });
    }
    expect(await countSingers()).toEqual(before);
  });

  it("stops a slow query at the time limit and keeps answering", async () => {
    const crossJoin =
      "SELECT count(*) FROM singer a, singer b, singer c, singer d, singer e, singer f, singer g, singer h, singer i, singer j, singer k, singer l, singer m, singer n";
    for (const sql of [SLOW, crossJoin]) {
      expect(await call("query", { db: "concert_singer", sql })).toMatchObject({
        isError: true,
        content: [{ type: "text", text: `query timed out after ${TIMEOUT_MS} ms` }],
      });
    }
    const [slow, quick] = await Promise.all([
      call("query", { db: "concert_singer", sql: SLOW }),
      call("query", { db: "pets_1", sql: "SELECT count(*) FROM Student" }),
    ]);
    expect(slow.isError).toBe(true);
    expect(quick.structuredContent).toMatchObject({ rows: [[34]] });
    expect(await countSingers()).toMatchObject({ rows: [[6]] });
  });

  it("verify: the same query, and an equivalent one, match", async () => {
    const gold = "SELECT Name FROM singer WHERE Age > 40";
    expect(await verify({ gold_sql: gold, predicted_sql: gold })).toEqual({
      match: true,
      compare: "bag",
      predicted_rows: 3,
      gold_rows: 3,
      error: null,
    });
    expect(
      await verify({ gold_sql: gold, predicted_sql: "SELECT name FROM SINGER WHERE NOT age <= 40" }),
    ).toMatchObject({
      match: true,
    });
    expect(
      await verify({
        gold_sql: "SELECT avg(Age) FROM singer",
        predicted_sql: "SELECT sum(Age) * 1.0 / count(*) FROM singer",
      }),
    ).toMatchObject({ match: true });
  });

  it("verify: a different result does not match", async () => {
    const result = await verify({
      gold_sql: "SELECT Name FROM singer WHERE Age > 40",
      predicted_sql: "SELECT Name FROM singer WHERE Age > 30",
    });
    expect(result).toEqual({ match: false, compare: "bag", predicted_rows: 4, gold_rows: 3, error: null });
    expect(
      await verify({ gold_sql: "SELECT count(*) FROM singer", predicted_sql: "SELECT '6'" }),
    ).toMatchObject({ match: false });
  });

  it("verify: row order matters only when the gold query orders its result", async () => {
    expect(
      await verify({
        gold_sql: "SELECT Name FROM singer",
        predicted_sql: "SELECT Name FROM singer ORDER BY Name DESC",
      }),
    ).toMatchObject({ match: true, compare: "bag" });
    const ordered = {
      gold_sql: "SELECT Name FROM singer ORDER BY Age",
      predicted_sql: "SELECT Name FROM singer ORDER BY Age DESC",
    };
    expect(await verify(ordered)).toMatchObject({ match: false, compare: "ordered" });
    expect(await verify({ ...ordered, compare: "bag" })).toMatchObject({ match: true, compare: "bag" });
    expect(
      await verify({
        gold_sql: "SELECT Name FROM singer ORDER BY Age",
        predicted_sql: "SELECT Name FROM (SELECT * FROM singer ORDER BY Age)",
      }),
    ).toMatchObject({ match: true, compare: "ordered" });
  });

  it("verify: columns may come in another order, but must be the same columns", async () => {
    expect(
      await verify({
        gold_sql: "SELECT Name, Country FROM singer",
        predicted_sql: "SELECT Country, Name FROM singer",
      }),
    ).toMatchObject({ match: true });
    expect(
      await verify({
        gold_sql: "SELECT Name, Country FROM singer",
        predicted_sql: "SELECT Name, Song_Name FROM singer",
      }),
    ).toMatchObject({ match: false });
    expect(
      await verify({
        gold_sql: "SELECT Name, Country FROM singer",
        predicted_sql: "SELECT Name FROM singer",
      }),
    ).toMatchObject({ match: false });
  });

  it("verify: duplicates count in bag comparison and not in set comparison", async () => {
    const args = {
      gold_sql: "SELECT Country FROM singer",
      predicted_sql: "SELECT DISTINCT Country FROM singer",
    };
    expect(await verify(args)).toMatchObject({ match: false, compare: "bag" });
    expect(await verify({ ...args, compare: "set" })).toMatchObject({ match: true, compare: "set" });
  });

  it("verify: a failing predicted query is no match, with SQLite's message", async () => {
    const gold = "SELECT Name FROM singer";
    expect(await verify({ gold_sql: gold, predicted_sql: "SELECT nme FROM singer" })).toEqual({
      match: false,
      compare: "bag",
      predicted_rows: null,
      gold_rows: 6,
      error: "no such column: nme",
    });
    expect(await verify({ gold_sql: gold, predicted_sql: "SELEC Name FROM singer" })).toMatchObject({
      match: false,
      error: expect.stringMatching(/^only read-only SELECT/),
    });
    expect(await verify({ gold_sql: gold, predicted_sql: "DELETE FROM singer" })).toMatchObject({
      match: false,
      error: "only read-only SELECT statements are allowed",
    });
    expect(await verify({ gold_sql: gold, predicted_sql: SLOW })).toMatchObject({
      match: false,
      error: `query timed out after ${TIMEOUT_MS} ms`,
    });
    expect(await countSingers()).toMatchObject({ rows: [[6]] });
  });

  it("verify: a failing gold query is a tool error", async () => {
    const result = await call("verify", {
      db: "concert_singer",
      gold_sql: "SELECT nme FROM singer",
      predicted_sql: "SELECT Name FROM singer",
    });
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "gold_sql failed: no such column: nme" }],
    });
  });
});

// The sql server under load (real HTTP on 127.0.0.1, real query processes, the shipped sample
// databases): one caller's runaway queries and a heavy `verify` never hold up another caller's
// call; a caller's cancellation or deadline, and the time limit of `verify`'s comparison, stop the
// work in its query process (the process is killed); and no answer shows a host path.
import type { Client } from "@modelcontextprotocol/client";
import { connectHttp } from "@rlfactory/test-support/mcp-client";
import { heavyVerify, RUNAWAY_SQL } from "@rlfactory/test-support/sql-workloads";
import { waitFor } from "@rlfactory/test-support/wait-for";
import type { HttpServing } from "@rlfactory/toolkit";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { CALLER_META_KEY } from "../fair-scheduling/caller-identity.ts";
import { REFUSED_PRAGMA } from "./read-only-statement.ts";
import { createSqlServer, DEFAULT_DB_DIR } from "./sql-server.ts";

interface LogLine {
  msg: string;
  reason?: string;
  caller?: string;
  op?: string;
  phase?: string;
  worker_pid?: number;
}

/** A server whose log lines are kept for the test to read. */
async function startServer(opts: { timeoutMs: number; processes: number }) {
  const lines: LogLine[] = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const serving = await createSqlServer({ ...opts, logger }).serveHttp({ port: 0 });
  return { serving, lines };
}

function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** A call's promise, and whether it has settled yet. */
function tracked<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let done = false;
  const settle = () => {
    done = true;
  };
  promise.then(settle, settle);
  return { promise, settled: () => done };
}

const stops = (lines: LogLine[], reason: string) =>
  lines.filter((l) => l.msg === "query process stopped" && l.reason === reason);

describe("sql tool server under load", () => {
  let serving: HttpServing | undefined;
  const clients: Client[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    await serving?.close();
    serving = undefined;
  });
  const connect = async (url: string) => {
    const client = await connectHttp(url, "2025-11-25");
    clients.push(client);
    return client;
  };

  it("answers another caller's SELECT 1 while one caller's runaway queries run, and a cancel kills them", async () => {
    const server = await startServer({ timeoutMs: 60_000, processes: 2 });
    serving = server.serving;
    const client = await connect(serving.url);
    const as = (caller: string) => ({ [CALLER_META_KEY]: caller });
    const cancelA = new AbortController();
    const runaways = Array.from({ length: 8 }, () =>
      tracked(
        client.callTool(
          { name: "query", arguments: { db: "pets_1", sql: RUNAWAY_SQL }, _meta: as("A") },
          { signal: cancelA.signal },
        ),
      ),
    );
    const select1 = await client.callTool({
      name: "query",
      arguments: { db: "pets_1", sql: "SELECT 1" },
      _meta: as("B"),
    });
    expect(select1.structuredContent).toMatchObject({ rows: [[1]] });
    expect(runaways.filter((r) => r.settled())).toHaveLength(0);

    cancelA.abort();
    const outcomes = await Promise.allSettled(runaways.map((r) => r.promise));
    expect(outcomes.map((o) => o.status)).toEqual(Array(8).fill("rejected"));
    await waitFor(
      () => stops(server.lines, "cancelled").length > 0,
      10_000,
      "a cancelled query's process stopping",
    );
    const stopped = stops(server.lines, "cancelled");
    expect(stopped.every((l) => l.caller === "meta:A" && l.op === "query")).toBe(true);
    await waitFor(
      () => stopped.every((l) => isGone(l.worker_pid!)),
      10_000,
      "the stopped processes to be gone",
    );
    expect(
      (await client.callTool({ name: "query", arguments: { db: "pets_1", sql: "SELECT 2" }, _meta: as("A") }))
        .structuredContent,
    ).toMatchObject({ rows: [[2]] });
  });

  it("lists tables for another session while a heavy verify compares, and a cancel stops the comparison", async () => {
    const server = await startServer({ timeoutMs: 60_000, processes: 2 });
    serving = server.serving;
    const [a, b] = [await connect(serving.url), await connect(serving.url)];
    const cancelA = new AbortController();
    const verify = tracked(
      a.callTool(
        { name: "verify", arguments: { db: "pets_1", ...heavyVerify(20_000, 7) } },
        { signal: cancelA.signal },
      ),
    );
    const comparing = () =>
      server.lines.find((l) => l.msg === "query job step" && l.op === "verify" && l.phase === "compare");
    await waitFor(() => comparing() !== undefined, 30_000, "verify to start its comparison");

    const tables = await b.callTool({ name: "list_tables", arguments: { db: "pets_1" } });
    expect(tables.structuredContent).toEqual({ tables: ["Student", "Has_Pet", "Pets"] });
    expect(verify.settled()).toBe(false);
    expect(comparing()?.caller).toMatch(/^session:/);

    cancelA.abort();
    await expect(verify.promise).rejects.toThrow();
    await waitFor(
      () => stops(server.lines, "cancelled").length === 1,
      10_000,
      "the verify's process stopping",
    );
    const [stopped] = stops(server.lines, "cancelled");
    expect(stopped).toMatchObject({ op: "verify", phase: "compare" });
    await waitFor(() => isGone(stopped!.worker_pid!), 10_000, "the verify's process to be gone");
  });

  it("stops a comparison at the time limit: no match, with the reason", async () => {
    const server = await startServer({ timeoutMs: 3_000, processes: 2 });
    serving = server.serving;
    const client = await connect(serving.url);
    const result = await client.callTool({
      name: "verify",
      arguments: { db: "pets_1", ...heavyVerify(20_000, 7) },
    });
    expect(result.structuredContent).toEqual({
      match: false,
      compare: "bag",
      predicted_rows: null,
      gold_rows: 20_000,
      error: "the comparison timed out after 3000 ms",
    });
    expect(stops(server.lines, "timeout")).toMatchObject([{ op: "verify", phase: "compare" }]);
  });

  it("never shows a host path: pragma_ functions are refused in any spelling", async () => {
    const server = await startServer({ timeoutMs: 2_000, processes: 2 });
    serving = server.serving;
    const client = await connect(serving.url);
    const spellings = [
      "SELECT * FROM pragma_database_list",
      "SELECT file FROM pragma_database_list()",
      'SELECT * FROM "PRAGMA_DATABASE_LIST"',
      "SELECT * FROM [pragma_database_list]",
      "SELECT * FROM `Pragma_Database_List`",
      "SELECT * FROM 'pragma_database_list'",
      "SELECT * FROM main.pragma_database_list",
      "SELECT name FROM pragma_table_info('Pets')",
      "WITH t AS (SELECT * FROM pragma_database_list) SELECT * FROM t",
    ];
    const texts: string[] = [];
    for (const sql of spellings) {
      const result = await client.callTool({ name: "query", arguments: { db: "pets_1", sql } });
      const text = (result.content as { text: string }[])[0]!.text;
      texts.push(text);
      expect({ sql, isError: result.isError, text }).toEqual({ sql, isError: true, text: REFUSED_PRAGMA });
      const verify = await client.callTool({
        name: "verify",
        arguments: { db: "pets_1", gold_sql: "SELECT 1", predicted_sql: sql },
      });
      expect(verify.structuredContent).toMatchObject({ match: false, error: REFUSED_PRAGMA });
    }
    for (const sql of ["ATTACH DATABASE 'x.db' AS x", "SELECT * FROM nope", "SELECT load_extension('x')"]) {
      const result = await client.callTool({ name: "query", arguments: { db: "pets_1", sql } });
      expect(result.isError).toBe(true);
      texts.push((result.content as { text: string }[])[0]!.text);
    }
    const dataDir = DEFAULT_DB_DIR.replace(/\/$/, "");
    for (const text of texts) expect(text).not.toContain(dataDir);
  });
});

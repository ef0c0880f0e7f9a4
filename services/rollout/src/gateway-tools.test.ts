// The one gateway-tools adapter against a real gateway in this process and the real `sql` tool server:
// a tool's own error (isError), a call's gateway code and the RPC's failure stay three different things.
import { GatewayClient } from "@rlfactory/clients";
import { freePort, type InProcessGateway, startTestGateway } from "@rlfactory/test-support/gateway-harness";
import type { HttpServing } from "@rlfactory/toolkit";
import { createSqlServer } from "@rlfactory/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewayCallError, gatewayTools } from "./gateway-tools.ts";

describe("gatewayTools", () => {
  let sql: HttpServing;
  let gw: InProcessGateway;

  beforeAll(async () => {
    sql = await createSqlServer().serveHttp({ port: 0 });
    gw = await startTestGateway({ servers: { sql: { url: sql.url } } });
  });
  afterAll(async () => {
    await gw?.stop();
    await sql?.close();
  });

  it("one turn's calls in one RPC, in order: a result, a tool's isError, a gateway code", async () => {
    const outcomes = await gatewayTools(gw.client).callTools(
      [
        { name: "sql__list_tables", arguments: { db: "concert_singer" } },
        { name: "sql__list_tables", arguments: { db: "no_such_db" } },
        { name: "sql__drop_tables", arguments: {} },
      ],
      { trajectoryId: "t/0", deadlineMs: 5_000 },
    );
    expect(outcomes.map((o) => [o.name, o.errorCode, o.isError])).toEqual([
      ["sql__list_tables", "OK", false],
      ["sql__list_tables", "OK", true],
      ["sql__drop_tables", "UNKNOWN_TOOL", false],
    ]);
    expect(outcomes[0]?.text).toContain("singer");
    expect(outcomes[1]?.text).toContain("no_such_db");
    expect(outcomes[2]).toMatchObject({
      structured: null,
      text: expect.stringContaining("sql__drop_tables"),
    });
  });

  it("the RPC failing is an error with a code for the loop, and that call's outcome for a reward", async () => {
    const nowhere = new GatewayClient(`127.0.0.1:${await freePort()}`);
    try {
      const tools = gatewayTools(nowhere);
      const failure = await tools
        .callTools([{ name: "sql__list_tables", arguments: {} }], { trajectoryId: "t/1", deadlineMs: 1_000 })
        .catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(GatewayCallError);
      expect(failure).toMatchObject({ code: "UNAVAILABLE", message: /^gateway CallTools failed: / });
      expect(await tools.call("sql__list_tables", {}, {})).toMatchObject({
        errorCode: "UNAVAILABLE",
        isError: false,
        text: expect.stringMatching(/^gateway CallTools failed: /),
      });
    } finally {
      nowhere.close();
    }
  });

  it("a cancelled signal ends the wait as CANCELLED", async () => {
    const abort = new AbortController();
    abort.abort();
    const tools = gatewayTools(gw.client);
    const failure = await tools
      .callTools([{ name: "sql__list_tables", arguments: {} }], {
        trajectoryId: "t/2",
        deadlineMs: 1_000,
        signal: abort.signal,
      })
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({ name: "GatewayCallError", code: "CANCELLED" });
    expect(await tools.call("sql__list_tables", {}, { signal: abort.signal })).toMatchObject({
      errorCode: "CANCELLED",
    });
  });
});

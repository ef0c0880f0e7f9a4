// tool_verified end to end: a real gateway in this process, the real `sql` tool server over Spider's
// concert_singer sample and the real `code` sandbox server, reached through the gateway adapter (gateway-tools.ts).
// Infrastructure failures are real too: a deadline the code tool cannot meet (TIMEOUT), a tool server
// that has been shut down (UNAVAILABLE), a gateway address nothing listens on.

import { GatewayClient } from "@rlfactory/clients";
import { freePort, type InProcessGateway, startTestGateway } from "@rlfactory/test-support/gateway-harness";
import { qaTask, rewardInput } from "@rlfactory/test-support/reward-fixtures";
import type { HttpServing } from "@rlfactory/toolkit";
import { createCodeServer, createSqlServer } from "@rlfactory/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayTools } from "../gateway-tools.ts";
import { createRewardFn, type RewardConfigInput } from "./reward-config.ts";
import type { RewardContext } from "./types.ts";

const GOLD = "SELECT Name FROM singer ORDER BY Age DESC";
const sqlTask = qaTask({ sql: GOLD }, { db_id: "concert_singer" }, "spider-1");
const sqlVerify = {
  type: "tool_verified",
  tool: "sql__verify",
  arguments: { db: "{{extra_info.db_id}}", predicted_sql: "{{answer}}", gold_sql: "{{ground_truth.sql}}" },
} as const;
const TESTS = [
  { stdin: "1 2\n", expected_stdout: "3\n" },
  { stdin: "2 2\n", expected_stdout: "4\n" },
  { stdin: "5 5\n", expected_stdout: "11\n" },
];
const codeTask = qaTask({ tests: TESTS }, {}, "add-two");
const runTests = {
  type: "tool_verified",
  tool: "code__run_tests",
  arguments: { code: "{{answer}}", language: "python", tests: "{{ground_truth.tests}}" },
  score_path: "passed/total",
} as const;

describe("tool_verified through a real gateway", () => {
  let sql: HttpServing;
  let sqlDown: HttpServing;
  let code: HttpServing;
  let gw: InProcessGateway;
  let ctx: RewardContext;

  beforeAll(async () => {
    [sql, sqlDown, code] = await Promise.all([
      createSqlServer().serveHttp({ port: 0 }),
      createSqlServer().serveHttp({ port: 0 }),
      createCodeServer({ concurrency: 2, uidBase: 61_540 }).then((s) => s.serveHttp({ port: 0 })),
    ]);
    gw = await startTestGateway({
      servers: { sql: { url: sql.url }, down: { url: sqlDown.url }, code: { url: code.url } },
    });
    ctx = { tools: gatewayTools(gw.client) };
    await sqlDown.close(); // its tools stay in the catalog; calls now find nothing listening
  });
  afterAll(async () => {
    await gw?.stop();
    await Promise.all([sql?.close(), code?.close()]);
  });

  const score = (config: RewardConfigInput, answer: string | null, task = sqlTask, c?: RewardContext) =>
    createRewardFn(config).score(rewardInput({ task, answer }), c ?? ctx);

  it("scores a correct query 1 and a wrong one 0, weighted with the format bonus", async () => {
    const config = [sqlVerify, { type: "format", weight: 0.1 }] as const;
    const right = await score([...config], "SELECT s.Name FROM singer AS s ORDER BY s.Age DESC");
    expect(right).toEqual({
      reward: 1.1,
      components: { tool_verified: 1, format: 1 },
      error: null,
      details: {},
    });
    const wrong = await score([...config], "SELECT Name FROM singer ORDER BY Age ASC");
    expect(wrong).toMatchObject({ reward: 0.1, components: { tool_verified: 0, format: 1 }, error: null });
    expect(wrong.details.tool_verified).toBe("no match (ordered comparison; predicted 6 rows, gold 6 rows)");
  });

  it("invalid SQL from the model is a 0 with the reason, not a failure", async () => {
    const out = await score([sqlVerify], "SELECT nope FROM singer");
    expect(out).toMatchObject({ reward: 0, components: { tool_verified: 0 }, error: null });
    expect(out.details.tool_verified).toBe("no match: the predicted query failed: no such column: nope");
    expect(await score([sqlVerify], null)).toMatchObject({
      reward: 0,
      details: { tool_verified: "no answer" },
    });
    expect(await score([sqlVerify], "  ")).toMatchObject({
      reward: 0,
      details: { tool_verified: "no answer" },
    });
  });

  it("a tool's isError scores 0 by default, or fails the reward with on_tool_error: fail", async () => {
    const task = qaTask({ sql: GOLD }, { db_id: "no_such_db" });
    const zero = await score([sqlVerify], "SELECT 1", task);
    expect(zero).toMatchObject({ reward: 0, error: null });
    expect(zero.details.tool_verified).toMatch(/^tool error: unknown database "no_such_db"/);
    const fail = await score([{ ...sqlVerify, on_tool_error: "fail" }], "SELECT 1", task);
    expect(fail).toMatchObject({ reward: null, error: { component: "tool_verified", code: "TOOL_ERROR" } });
  });

  it("run_tests scores the fraction of passed cases (passed/total)", async () => {
    const adder = "a, b = map(int, input().split())\nprint(a + b)";
    const out = await score([runTests], adder, codeTask);
    expect(out.error).toBeNull();
    expect(out.reward).toBeCloseTo(2 / 3, 12); // 5 + 5 = 10, not the expected 11
    expect(out.details.tool_verified).toMatch(/^2\/3 tests passed/);
  });

  it("a deadline the code tool cannot meet: reward null, TIMEOUT, the other components still reported", async () => {
    const config = [
      { ...runTests, deadline_ms: 300 },
      { type: "format", weight: 0.1 },
      { type: "tool_call_penalty" },
    ] as const;
    const out = await score([...config], "while True:\n    pass", codeTask);
    expect(out).toMatchObject({
      reward: null,
      components: { format: 1, tool_call_penalty: 0 },
      error: { component: "tool_verified", code: "TIMEOUT" },
    });
    expect(out.components).not.toHaveProperty("tool_verified");
    expect(out.error?.message).toMatch(/^code__run_tests: TIMEOUT: .*300 ms deadline/);
  });

  it("a tool server that is down: reward null with UNAVAILABLE (and every failure listed)", async () => {
    const config: RewardConfigInput = [
      { ...sqlVerify, name: "verify_down", tool: "down__verify" },
      { ...sqlVerify, name: "verify_typo", tool: "sql__verifyy" },
      { type: "exact_match", weight: 0 },
    ];
    const task = { ...sqlTask, ground_truth: { sql: GOLD, target: ["SELECT 1"] } };
    const out = await score(config, "SELECT 1", task);
    expect(out.reward).toBeNull();
    expect(out.components).toEqual({ exact_match: 1 }); // weight 0, still reported
    expect(out.error).toMatchObject({ component: "verify_down", code: "UNAVAILABLE" });
    expect(out.error?.message).toMatch(/down__verify: UNAVAILABLE: .*(down|ECONNREFUSED)/);
    expect(out.error?.message).toMatch(/\(also failed: verify_typo UNKNOWN_TOOL\)$/);
  });

  it("a template path the task lacks fails the reward without calling the tool", async () => {
    const out = await score([sqlVerify], "SELECT 1", qaTask({ sql: GOLD }, {}, "no-db"));
    expect(out).toMatchObject({
      reward: null,
      error: {
        component: "tool_verified",
        code: "TEMPLATE_PATH_MISSING",
        message: 'argument template: task no-db has no value at "extra_info.db_id"',
      },
    });
  });

  it("a gateway nobody listens on, and a cancelled scoring, are infrastructure failures", async () => {
    const nowhere = new GatewayClient(`127.0.0.1:${await freePort()}`);
    try {
      const out = await score([sqlVerify], GOLD, sqlTask, { tools: gatewayTools(nowhere) });
      expect(out).toMatchObject({ reward: null, error: { code: "UNAVAILABLE" } });
      expect(out.error?.message).toMatch(/^sql__verify: UNAVAILABLE: gateway CallTools failed: /);
    } finally {
      nowhere.close();
    }
    const abort = new AbortController();
    const pending = score([{ ...runTests, deadline_ms: 1_000 }], "while True:\n    pass", codeTask, {
      ...ctx,
      signal: abort.signal,
    });
    abort.abort();
    expect(await pending).toMatchObject({ reward: null, error: { code: "CANCELLED" } });
  });
});

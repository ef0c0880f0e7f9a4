// After switching Node under an existing install, the SQL tool's native addon (better-sqlite3) no longer
// loads. `rlf tool sql` asks at start, lists its tools as unavailable with the whole cause and what to run,
// the gateway's /readyz reports the server degraded and names it, and a call answers UNAVAILABLE with
// that reason. The load failure is Node's own message for an addon built under another Node, raised by a
// module-resolution hook in the tool server's processes (NODE_OPTIONS, inherited by its query processes).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ChildGateway, RLF, spawnGateway, tempDir } from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const NODE_ABI_MESSAGE = [
  "The module '/opt/old/node_modules/better-sqlite3/build/Release/better_sqlite3.node'",
  "was compiled against a different Node.js version using",
  "NODE_MODULE_VERSION 115. This version of Node.js requires",
  "NODE_MODULE_VERSION 127. Please try re-compiling or re-installing",
  "the module (for instance, using `npm rebuild` or `npm install`).",
].join("\n");

describe("sql tool server whose engine cannot load", () => {
  let gateway: ChildGateway;
  beforeAll(async () => {
    const dir = tempDir("rlf-sql-abi-");
    writeFileSync(
      join(dir, "hook.mjs"),
      `export async function resolve(specifier, context, next) {
  if (specifier === "better-sqlite3") throw new Error(${JSON.stringify(NODE_ABI_MESSAGE)});
  return next(specifier, context);
}\n`,
    );
    writeFileSync(
      join(dir, "register.mjs"),
      'import { register } from "node:module";\nregister("./hook.mjs", import.meta.url);\n',
    );
    gateway = await spawnGateway({
      servers: {
        sql: {
          command: process.execPath,
          args: [RLF, "tool", "sql", "--stdio"],
          env: { NODE_OPTIONS: `--import=${join(dir, "register.mjs")}` },
        },
      },
    });
  }, 120_000);
  afterAll(async () => {
    await gateway?.stop();
  });

  it("/readyz says degraded and names the cause and what to run", async () => {
    const res = await fetch(`${gateway.adminUrl}/readyz`);
    const body = (await res.json()) as {
      status: string;
      upstreams: { name: string; unavailable_tools: { name: string; reason: string }[] }[];
    };
    expect(body.status).toBe("degraded");
    const sql = body.upstreams.find((u) => u.name === "sql");
    expect(sql?.unavailable_tools.map((t) => t.name).sort()).toEqual([
      "sql__describe_table",
      "sql__list_tables",
      "sql__query",
      "sql__verify",
    ]);
    const reason = sql?.unavailable_tools[0]?.reason ?? "";
    expect(reason).toContain("NODE_MODULE_VERSION 115");
    expect(reason).toContain("npm rebuild better-sqlite3");
  });

  it("a call answers UNAVAILABLE with that reason", async () => {
    const res = await fetch(`${gateway.adminUrl}/v1/tools/sql__query:call`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ arguments: { db: "concert_singer", sql: "SELECT 1" } }),
    });
    const body = (await res.json()) as { error_code: string; content?: { text?: string }[]; error?: unknown };
    expect(body.error_code).toBe("UNAVAILABLE");
    expect(JSON.stringify(body)).toContain("npm rebuild better-sqlite3");
  });
});

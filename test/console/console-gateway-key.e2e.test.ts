import { type ChildGateway, RLF, spawnGateway, tempDir } from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleProcess, startConsoleProcess } from "./console-process.ts";

const GATEWAY_KEY = "gateway-key-for-the-console-1";

describe("rlf console --gateway-api-key-env against a gateway with auth on", () => {
  let gateway: ChildGateway;
  const consoles: ConsoleProcess[] = [];

  beforeAll(async () => {
    gateway = await spawnGateway(
      {
        servers: { search: { command: process.execPath, args: [RLF, "tool", "search", "--stdio"] } },
        auth: { api_keys_env: "RLF_TEST_GATEWAY_KEYS" },
      },
      { RLF_TEST_GATEWAY_KEYS: `other-key-0000001,${GATEWAY_KEY}` },
    );
  }, 90_000);

  afterAll(async () => {
    for (const c of consoles) await c.stop();
    await gateway?.stop();
  });

  /** `rlf console` on a free port with `args` and `env`; its URL once it serves. */
  async function startConsole(args: string[], env: Record<string, string> = {}): Promise<string> {
    const c = await startConsoleProcess(
      ["--port", "0", "--gateway-admin", gateway.adminUrl, "--runs", tempDir(), ...args],
      env,
    );
    consoles.push(c);
    return c.url;
  }

  it("the gateway refuses its admin API without a key (auth is on)", async () => {
    expect((await fetch(`${gateway.adminUrl}/v1/tools`)).status).toBe(401);
  });

  it("without a key the console passes on the gateway's refusal and names the option", async () => {
    const url = await startConsole([]);
    const res = await fetch(`${url}/api/tools`);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect([res.status, body.error.code]).toEqual([502, "GATEWAY_UNAUTHENTICATED"]);
    expect(body.error.message).toContain("HTTP 401");
    expect(body.error.message).toContain("--gateway-api-key-env");
    const call = await fetch(`${url}/api/tools/search__search/call`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ arguments: { query: "Scott Derrickson" } }),
    });
    expect(call.status).toBe(502);
  });

  it("with --gateway-api-key-env it lists the tools and the playground calls one", async () => {
    const url = await startConsole(["--gateway-api-key-env", "RLF_TEST_CONSOLE_GW_KEY"], {
      RLF_TEST_CONSOLE_GW_KEY: GATEWAY_KEY,
    });
    const tools = (await (await fetch(`${url}/api/tools`)).json()) as { tools: { name: string }[] };
    expect(tools.tools.map((t) => t.name)).toContain("search__search");
    const call = await fetch(`${url}/api/tools/search__search/call`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ arguments: { query: "Scott Derrickson" } }),
    });
    const answer = (await call.json()) as { status: number; result: { content: { text: string }[] } };
    expect(answer.status).toBe(200);
    expect(answer.result.content.map((c) => c.text).join("\n")).toContain("Scott Derrickson");
  });

  it("a key the gateway does not hold is named as refused", async () => {
    const url = await startConsole(["--gateway-api-key-env", "RLF_TEST_CONSOLE_GW_KEY"], {
      RLF_TEST_CONSOLE_GW_KEY: "not-a-gateway-key-99",
    });
    const res = await fetch(`${url}/api/tools`);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect([res.status, body.error.code]).toEqual([502, "GATEWAY_UNAUTHENTICATED"]);
    expect(body.error.message).toContain("refused the console's API key");
  });
});

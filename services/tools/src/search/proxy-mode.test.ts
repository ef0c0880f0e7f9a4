// Proxy mode: a `search` server with --retriever-url forwards to another /retrieve server, and
// reports a down or stuck remote as a short tool error (and 502 on its own /retrieve).

import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { connectHttp } from "@rlfactory/test-support/mcp-client";
import { sharedDataPath } from "@rlfactory/test-support/shared-data";
import type { HttpServing } from "@rlfactory/toolkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSearchServer } from "./search-server.ts";

const EXAMPLE_CORPUS = sharedDataPath("search_r1_example/corpus.jsonl");
const QUERY = "Evan Morris lobbyist 1989 cathedral";

const origin = (serving: HttpServing) => new URL("/", serving.url).href;

async function postRetrieve(base: string, body: unknown) {
  const response = await fetch(new URL("retrieve", base), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("proxy mode", () => {
  let backend: HttpServing;
  let proxy: HttpServing;
  let client: Client;
  beforeAll(async () => {
    const indexDir = join(mkdtempSync(join(tmpdir(), "rlf-search-proxy-")), "index");
    backend = await (await createSearchServer({ corpus: EXAMPLE_CORPUS, indexDir })).serveHttp({ port: 0 });
    proxy = await (await createSearchServer({ retrieverUrl: `${origin(backend)}retrieve` })).serveHttp({
      port: 0,
    });
    client = await connectHttp(proxy.url, "2025-11-25");
  });
  afterAll(async () => {
    await client.close();
    await proxy.close();
    await backend.close();
  });

  it("answers the tool and /retrieve exactly as the remote would", async () => {
    const direct = await connectHttp(backend.url, "2025-11-25");
    try {
      const viaProxy = await client.callTool({ name: "search", arguments: { query: QUERY, topk: 3 } });
      expect(viaProxy.isError).toBeFalsy();
      expect(viaProxy).toEqual(
        await direct.callTool({ name: "search", arguments: { query: QUERY, topk: 3 } }),
      );
    } finally {
      await direct.close();
    }
    for (const body of [
      { queries: [QUERY, "Pavia Cathedral dome"], topk: 2, return_scores: true },
      { queries: [QUERY], return_scores: false },
    ]) {
      const viaProxy = await postRetrieve(origin(proxy), body);
      expect(viaProxy.status).toBe(200);
      expect(viaProxy).toEqual(await postRetrieve(origin(backend), body));
    }
  });

  it("reports an unreachable remote as a tool error and a 502", async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, "127.0.0.1", done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    const down = await (
      await createSearchServer({ retrieverUrl: `http://127.0.0.1:${port}/retrieve` })
    ).serveHttp({
      port: 0,
    });
    const downClient = await connectHttp(down.url, "2025-11-25");
    try {
      expect(await downClient.callTool({ name: "search", arguments: { query: QUERY } })).toMatchObject({
        isError: true,
        content: [
          {
            type: "text",
            text: `Search backend http://127.0.0.1:${port}/retrieve is unreachable (ECONNREFUSED)`,
          },
        ],
      });
      const response = await postRetrieve(origin(down), { queries: [QUERY] });
      expect(response).toEqual({ status: 502, body: { error: expect.stringMatching(/unreachable/) } });
    } finally {
      await downClient.close();
      await down.close();
    }
  });

  it("gives up on a remote that does not answer within the timeout", async () => {
    const stuck: Server = createServer(() => {}); // never responds
    await new Promise<void>((done) => stuck.listen(0, "127.0.0.1", done));
    const url = `http://127.0.0.1:${(stuck.address() as AddressInfo).port}/retrieve`;
    const slow = await (await createSearchServer({ retrieverUrl: url, retrieverTimeoutMs: 300 })).serveHttp({
      port: 0,
    });
    const slowClient = await connectHttp(slow.url, "2025-11-25");
    try {
      expect(await slowClient.callTool({ name: "search", arguments: { query: QUERY } })).toMatchObject({
        isError: true,
        content: [{ type: "text", text: `Search backend ${url} timed out after 300 ms` }],
      });
    } finally {
      await slowClient.close();
      await slow.close();
      stuck.closeAllConnections();
      await new Promise((done) => stuck.close(done));
    }
  });
});

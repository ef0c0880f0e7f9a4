// The `search` server as users run it: MCP over stdio (child process) and HTTP in both protocol eras,
// with Search-R1's text rendering, plus POST /retrieve's exact Search-R1 request/response shapes.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/client";
import { connectHttp, connectStdio, ERAS } from "@rlfactory/test-support/mcp-client";
import { sharedDataPath } from "@rlfactory/test-support/shared-data";
import type { HttpServing } from "@rlfactory/toolkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { searchServerEntry } from "./index.ts";
import { createSearchServer } from "./search-server.ts";

const ROOT = resolve(fileURLToPath(new URL(".", import.meta.url)), "../../../..");
const EXAMPLE_CORPUS = sharedDataPath("search_r1_example/corpus.jsonl");
const examplePassages = readFileSync(EXAMPLE_CORPUS, "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as { id: string; contents: string });
const tmp = mkdtempSync(join(tmpdir(), "rlf-search-server-"));

// Matches passage "0" ("Evan Morris", a lobbyist) best, then "4" and "5" (Pavia Cathedral, begun 1488,
// one mentioning 1989).
const QUERY = "Evan Morris lobbyist 1989 cathedral";

function checkSearchResult(result: Awaited<ReturnType<Client["callTool"]>>) {
  const { results } = result.structuredContent as {
    results: { id: string; title: string; text: string; score: number }[];
  };
  expect(results).toHaveLength(2);
  expect(results[0]).toMatchObject({ id: "0", title: "Evan Morris" });
  expect(results[0]?.text.startsWith("Evan Morris Evan L. Morris (January 26, 1977")).toBe(true);
  expect(results[0]?.score).toBeGreaterThan(results[1]?.score ?? Number.POSITIVE_INFINITY);
  const [first, second] = results.map((r) => examplePassages.find((p) => p.id === r.id));
  expect(result.content).toEqual([
    {
      type: "text",
      text:
        `Doc 1(Title: "Evan Morris") ${first?.contents.split("\n").slice(1).join("\n")}\n` +
        `Doc 2(Title: ${second?.contents.split("\n")[0]}) ${second?.contents.split("\n").slice(1).join("\n")}\n`,
    },
  ]);
}

describe("search over stdio", () => {
  // The server's own flags parsed as `rlf tool search` parses them (node:util parseArgs, strict).
  const script =
    `import { parseArgs } from "node:util";` +
    `import { serveFromArgs } from "@rlfactory/toolkit";` +
    `import { searchServerEntry } from ${JSON.stringify(fileURLToPath(new URL("./index.ts", import.meta.url)))};` +
    `const { values } = parseArgs({ args: process.argv.slice(1), options: searchServerEntry.options, strict: true });` +
    `const server = await searchServerEntry.create(values);` +
    `await serveFromArgs(server, ["--stdio"]);`;
  const runs = [
    ...ERAS.map((era) => ({ era, flags: [] as string[] })),
    ...ERAS.slice(0, 1).map((era) => ({ era, flags: ["--no-mmap"] })), // read into memory, not mapped
  ];
  for (const { era, flags } of runs) {
    it(`answers search in protocol ${era}${flags.length > 0 ? ` with ${flags.join(" ")}` : ""}`, async () => {
      const indexDir = join(tmp, `stdio-${era}${flags.join("")}`);
      const client = await connectStdio(
        {
          command: process.execPath,
          args: [
            "--input-type=module",
            "-e",
            script,
            "--",
            "--corpus",
            EXAMPLE_CORPUS,
            "--index-dir",
            indexDir,
            ...flags,
          ],
          cwd: ROOT,
          stderr: "ignore",
        },
        era,
      );
      try {
        checkSearchResult(await client.callTool({ name: "search", arguments: { query: QUERY, topk: 2 } }));
      } finally {
        await client.close();
      }
    });
  }
});

describe("search over HTTP", () => {
  let serving: HttpServing;
  let base: string;
  beforeAll(async () => {
    const server = await createSearchServer({ corpus: EXAMPLE_CORPUS, indexDir: join(tmp, "http") });
    serving = await server.serveHttp({ port: 0 });
    base = new URL("/", serving.url).href;
  });
  afterAll(() => serving.close());

  const retrieve = async (body: unknown) => {
    const response = await fetch(new URL("retrieve", base), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  for (const era of ERAS) {
    describe(`protocol ${era}`, () => {
      let client: Client;
      beforeAll(async () => {
        client = await connectHttp(serving.url, era);
      });
      afterAll(() => client.close());

      it("lists `search` as read-only and idempotent with topk 1..100 defaulting to 3", async () => {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(["search"]);
        expect(tools[0]?.annotations).toEqual({ readOnlyHint: true, idempotentHint: true });
        expect(tools[0]?.inputSchema).toMatchObject({
          required: ["query"],
          properties: { topk: { default: 3, minimum: 1, maximum: 100 } },
        });
      });

      it("answers with structured results and Search-R1's Doc i(Title: ...) text", async () => {
        checkSearchResult(await client.callTool({ name: "search", arguments: { query: QUERY, topk: 2 } }));
        const dflt = await client.callTool({ name: "search", arguments: { query: QUERY } });
        const ids = (dflt.structuredContent as { results: { id: string }[] }).results.map((r) => r.id);
        expect(ids).toEqual(["0", "4", "5"]);
      });

      it("says so when nothing matches, and rejects a topk out of range", async () => {
        const none = await client.callTool({ name: "search", arguments: { query: "the of and zzqxv" } });
        expect(none.structuredContent).toEqual({ results: [] });
        expect(none.content).toEqual([{ type: "text", text: "No results." }]);
        expect(await client.callTool({ name: "search", arguments: { query: "x", topk: 101 } })).toMatchObject(
          {
            isError: true,
            content: [
              { type: "text", text: expect.stringMatching(/^Invalid arguments for tool search: topk: /) },
            ],
          },
        );
      });
    });
  }

  it("POST /retrieve answers a batch in Search-R1's shape, with and without scores", async () => {
    // The second query ties on passages 2, 3 and 8 (one shared term each): ties go to corpus order.
    const withScores = await retrieve({
      queries: [QUERY, "Horatio Hale Algonkin vocabulary college film"],
      topk: 2,
      return_scores: true,
    });
    expect(withScores.status).toBe(200);
    const result = withScores.body.result as {
      document: { id: string; contents: string };
      score: number;
    }[][];
    expect(result).toHaveLength(2);
    for (const hits of result) {
      expect(hits).toHaveLength(2);
      for (const hit of hits) {
        expect(Object.keys(hit).sort()).toEqual(["document", "score"]);
        expect(hit.document).toEqual(examplePassages.find((p) => p.id === hit.document.id));
        expect(typeof hit.score).toBe("number");
      }
    }
    expect(result.map((hits) => hits.map((h) => h.document.id))).toEqual([
      ["0", "4"],
      ["1", "2"],
    ]);

    const bare = await retrieve({ queries: [QUERY], topk: null, return_scores: false });
    expect(bare.status).toBe(200);
    const bareResult = bare.body.result as { id: string; contents: string }[][];
    expect(bareResult[0]).toHaveLength(3); // topk null -> the default, 3
    expect(bareResult[0]?.[0]).toEqual(examplePassages[0]);
    expect(bareResult[0]?.map((d) => d.id)).toEqual(["0", "4", "5"]);
    expect((await retrieve({ queries: [QUERY] })).body).toEqual(bare.body);
  });

  it("POST /retrieve answers 400 with an error on malformed requests", async () => {
    for (const body of [
      {},
      { queries: "one" },
      { queries: [] },
      { queries: ["x"], topk: 0 },
      { queries: [1] },
    ]) {
      const response = await retrieve(body);
      expect(response.status).toBe(400);
      expect(typeof response.body.error).toBe("string");
    }
  });
});

describe("rlf tool search options", () => {
  it("refuses proxy mode combined with a corpus, and bad BM25 parameters", () => {
    expect(() =>
      searchServerEntry.create({ "retriever-url": "http://127.0.0.1:1/retrieve", corpus: "c.jsonl" }),
    ).toThrow(/--retriever-url/);
    expect(() => searchServerEntry.create({ b: "1.5" })).toThrow(/b/);
  });
});

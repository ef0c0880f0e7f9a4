// The episode-batch message: a CallTools batch's calls on one episode reach an environment server that
// lists `episode_batch` as ONE tools/call, and a server that does not list it gets them one by one, with
// the same results. The servers are the contract suite's reference kv environment, in TypeScript
// (test/support/src/kv-environment.ts) and as a Python class served by `rlf env python` (whose batch
// goes to its worker all at once, `pipeline`), each in a child process behind a tap that writes down
// every request the gateway sends it (test/support/src/mcp-request-log.ts); the `_old` server of each
// is the same behind a tap that hides `episode_batch` from tools/list.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolCall } from "@rlfactory/proto/types/ToolCall";
import type { ToolResult__Output } from "@rlfactory/proto/types/ToolResult";
import {
  type InProcessGateway,
  RLF,
  ROOT,
  startTestGateway,
  tempDir,
} from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const dir = tempDir("rlf-episode-batch-");
const TAP = join(ROOT, "test/support/src/mcp-request-log.ts");
const ENVIRONMENTS: [name: string, server: string, command: string[]][] = [
  [
    "TypeScript toolkit (defineEnvironment)",
    "kv",
    [join(ROOT, "test/support/src/kv-environment.ts"), "--stdio"],
  ],
  [
    "Python class (rlf env python)",
    "py",
    [
      RLF,
      "env",
      "python",
      "--module",
      join(ROOT, "test/support/python/kv_environment.py"),
      "--class",
      "KV",
      "--stdio",
    ],
  ],
];
const log = (server: string) => join(dir, `${server}.log`);

const tapped = (server: string, command: string[], hide: string[] = []) => ({
  command: process.execPath,
  args: [TAP, log(server), ...hide, "--", process.execPath, ...command],
});

/** The requests the server has been sent since `from` (a line count of its log). */
const requests = (server: string, from = 0) =>
  readFileSync(log(server), "utf8").split("\n").filter(Boolean).slice(from);

let gw: InProcessGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    servers: Object.fromEntries(
      ENVIRONMENTS.flatMap(([, server, command]) => [
        [server, tapped(server, command)],
        [`${server}_old`, tapped(`${server}_old`, command, ["--hide-tool", "episode_batch"])],
      ]),
    ),
  });
}, 60_000);
afterAll(() => gw?.stop());

/**
 * One turn's calls on `episode` of `server`: in order, appends whose earlier calls take longer (run
 * concurrently, they would land in reverse), a call refused by the gateway (arguments against the
 * schema), one over its deadline, an unknown tool, and reads of what the turn wrote.
 */
function turn(server: string, episode: string): ToolCall[] {
  const call = (i: number, tool: string, args: unknown, extra: Partial<ToolCall> = {}): ToolCall => ({
    name: `${server}__${tool}`,
    arguments_json: typeof args === "string" ? args : JSON.stringify(args),
    episode_id: episode,
    call_id: String(i),
    ...extra,
  });
  return [
    call(0, "append", { key: "log", value: "a", delay_ms: 40 }),
    call(1, "append", { key: "log", value: "b", delay_ms: 20 }),
    call(2, "put", { key: "k" }),
    call(3, "append", { key: "log", value: "c", delay_ms: 0 }),
    call(4, "append", { key: "slow", value: "s", delay_ms: 400 }, { deadline_ms: 100 }),
    call(5, "nope", {}),
    call(6, "get", { key: "slow" }),
    call(7, "put", { key: "k", value: "v" }),
    call(8, "get", { key: "log" }),
    call(9, "put", "{not json"),
  ];
}

/** A result as the caller compares it: without its wall time, and with the server's name as `S`. */
const comparable = (r: ToolResult__Output, server: string) => {
  const { latency_ms: _latency, ...rest } = r;
  return JSON.parse(JSON.stringify(rest).replaceAll(`${server}__`, "S__"));
};

describe.each(ENVIRONMENTS)("CallTools on one episode: %s", (_name, kv) => {
  const old = `${kv}_old`;
  it("sends the calls that pass the gateway's checks as one episode_batch request, in order, with one-by-one's results", async () => {
    const [batched, single] = [await gw.client.startEpisode(kv), await gw.client.startEpisode(old)];
    const [kvFrom, oldFrom] = [requests(kv).length, requests(old).length];

    const viaBatch = await gw.client.callTools({ calls: turn(kv, batched) });
    const oneByOne = await gw.client.callTools({ calls: turn(old, single) });

    // One request for the seven calls the gateway let through (not 2, 5: refused here; 9: not JSON)...
    expect(requests(kv, kvFrom)).toEqual(["tools/call episode_batch"]);
    // ...where the server without the batch tool got each of them.
    expect(requests(old, oldFrom)).toEqual([
      "tools/call append",
      "tools/call append",
      "tools/call append",
      "tools/call append",
      "tools/call get",
      "tools/call put",
      "tools/call get",
    ]);

    expect(viaBatch.map((r) => comparable(r, kv))).toEqual(oneByOne.map((r) => comparable(r, old)));
    expect(viaBatch.map((r) => [r.call_id, r.error_code])).toEqual([
      ["0", "OK"],
      ["1", "OK"],
      ["2", "INVALID_ARGUMENTS"],
      ["3", "OK"],
      ["4", "TIMEOUT"],
      ["5", "UNKNOWN_TOOL"],
      ["6", "OK"],
      ["7", "OK"],
      ["8", "OK"],
      ["9", "INVALID_ARGUMENTS"],
    ]);
    const value = (r: ToolResult__Output) => JSON.parse(r.structured_content_json).value;
    // In request order: the appends in the order sent; the read after the timed-out call waits for it.
    expect([0, 1, 3, 6, 8].map((i) => value(viaBatch[i]!))).toEqual(["a", "ab", "abc", "s", "abc"]);
    expect(viaBatch[4]!.error_message).toBe(`${kv}__append: no result within the 100 ms deadline`);

    expect(await gw.client.endEpisode(batched)).toEqual({ log: "abc", slow: "s", k: "v" });
    expect(await gw.client.endEpisode(single)).toEqual({ log: "abc", slow: "s", k: "v" });
  });

  it("sends one batch per episode when a request mixes episodes, and a lone call as itself", async () => {
    const [a, b, c] = [
      await gw.client.startEpisode(kv),
      await gw.client.startEpisode(kv),
      await gw.client.startEpisode(kv),
    ];
    const from = requests(kv).length;
    const put = (episode_id: string, key: string, call_id: string): ToolCall => ({
      name: `${kv}__put`,
      arguments_json: JSON.stringify({ key, value: call_id }),
      episode_id,
      call_id,
    });
    const results = await gw.client.callTools({
      calls: [put(a, "x", "a1"), put(b, "x", "b1"), put(a, "y", "a2"), put(c, "x", "c1"), put(b, "y", "b2")],
    });
    expect(results.map((r) => [r.call_id, r.error_code])).toEqual(
      ["a1", "b1", "a2", "c1", "b2"].map((id) => [id, "OK"]),
    );
    expect(requests(kv, from).sort()).toEqual([
      "tools/call episode_batch",
      "tools/call episode_batch",
      "tools/call put",
    ]);
    expect(await gw.client.endEpisode(a)).toEqual({ x: "a1", y: "a2" });
    expect(await gw.client.endEpisode(b)).toEqual({ x: "b1", y: "b2" });
    expect(await gw.client.endEpisode(c)).toEqual({ x: "c1" });
  });

  it("answers every call of a batch on an ended episode EPISODE_NOT_FOUND without asking the server", async () => {
    const id = await gw.client.startEpisode(kv);
    await gw.client.endEpisode(id);
    const from = requests(kv).length;
    const results = await gw.client.callTools({
      calls: ["0", "1"].map((call_id) => ({
        name: `${kv}__get`,
        arguments_json: '{"key":"x"}',
        episode_id: id,
        call_id,
      })),
    });
    expect(results.map((r) => r.error_code)).toEqual(["EPISODE_NOT_FOUND", "EPISODE_NOT_FOUND"]);
    expect(requests(kv, from)).toEqual([]);
  });
});

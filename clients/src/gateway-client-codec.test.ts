// The gateway client's wire codec (the static codec generated from gateway.proto, see
// proto/src/static-client.ts) against proto-loader's, which the gateway server still uses: for every
// method of rlfactory.v1.ToolGateway, the same paths and names, the same bytes from the same object,
// and the same objects (PROTO_LOADER_OPTIONS: keepCase, enums and longs as strings, bytes as Buffer,
// defaults, arrays, oneof names) from the same bytes, in both directions. gateway.proto has oneofs
// (Content.kind; proto3 `optional` fields, whose synthetic oneofs proto-loader names too), bytes, enums,
// uint32, double and repeated fields; it has no map, 64-bit integer or google.protobuf.Struct field.
import type { MethodDefinition } from "@grpc/grpc-js";
import { ToolGateway } from "@rlfactory/proto/codec/gateway-services";
import { loadServiceProto, PROTO_FILES } from "@rlfactory/proto/load-service-proto";
import { staticClientConstructor } from "@rlfactory/proto/static-client";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

type Method = MethodDefinition<object, object>;
const loader = loadServiceProto(PROTO_FILES.gateway).clientConstructor("ToolGateway").service;
const generated = staticClientConstructor(ToolGateway).service;

const bytes = (...b: number[]) => Buffer.from(b);
const content = [
  { text: { text: "héllo ✓\nworld" } },
  { image: { data: bytes(0, 1, 2, 255), mime_type: "image/png" } },
  { audio: { data: bytes(), mime_type: "audio/wav" } },
  { resource: { uri: "file:///a.txt", mime_type: "text/plain", text: "t", blob: bytes(9, 8) } },
  { resource_link: { uri: "https://example.org/x", name: "x", description: "d", mime_type: "text/html" } },
  {},
];
const result = {
  name: "testbed__echo",
  call_id: "c-1",
  content,
  structured_content_json: '{"a":1}',
  is_error: true,
  error_code: "EPISODE_LOST",
  error_message: "gone",
  latency_ms: 12.5,
  cache_hit: true,
  attempts: 4294967295,
  truncated: true,
};
const call = {
  name: "testbed__echo",
  arguments_json: '{"text":"hi"}',
  deadline_ms: 250,
  trajectory_id: "traj",
  cache: "CACHE_BYPASS",
  call_id: "c-1",
  episode_id: "ep-1",
};
const tool = {
  name: "testbed__echo",
  server: "testbed",
  upstream_name: "echo",
  title: "Echo",
  description: "Echoes",
  input_schema_json: '{"type":"object"}',
  output_schema_json: "",
  annotations: { read_only_hint: true, destructive_hint: false },
  cacheable: true,
  idempotent: false,
  schema_version: "abc123",
};

/** Objects a caller or the server hands the serializers, by method: requests, then responses. */
const FIXTURES: Record<string, { requests: object[]; responses: object[] }> = {
  ListTools: {
    requests: [{}, { server: "testbed" }],
    responses: [{}, { tools: [tool, { name: "bare" }, { ...tool, annotations: {} }] }],
  },
  CallTool: {
    requests: [{}, call, { ...call, cache: 0, deadline_ms: 0 }, { ...call, cache: 1, unknown_key: "x" }],
    responses: [
      {},
      result,
      { ...result, error_code: 13, content: [] },
      { content: [{ image: { data: "AAEC/w==", mime_type: "image/png" } }] },
      { content: [{ audio: { data: new Uint8Array([1, 2]) } }] },
      { latency_ms: -0.25, attempts: 0, is_error: false },
    ],
  },
  CallTools: {
    requests: [{}, { calls: [call, {}, { name: "x" }], deadline_ms: 1000, trajectory_id: "t" }],
    responses: [{}, { results: [result, {}, { error_code: "TIMEOUT", error_message: "late" }] }],
  },
  CallToolsStream: {
    requests: [
      {},
      {
        batch_id: 7,
        batch: { calls: [call], deadline_ms: 50 },
        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        tracestate: "k=v",
      },
      { batch_id: "18446744073709551615", cancel: true },
      { batch_id: 3, batch: {} },
    ],
    responses: [
      {},
      { batch_id: 7, results: [result, {}], status_code: 0 },
      { batch_id: "9007199254740993", status_code: 8, status_details: "batch of 9 calls; the limit is 8" },
    ],
  },
  StartEpisode: {
    requests: [{}, { server: "env", config_json: '{"seed":3}', ttl_ms: 60000 }],
    responses: [{}, { episode_id: "ep-1" }],
  },
  ForkEpisode: {
    requests: [{}, { episode_id: "ep-1", count: 3 }],
    responses: [{}, { episode_ids: ["a", "b", "c"] }, { episode_ids: [""] }],
  },
  SnapshotEpisode: { requests: [{}, { episode_id: "ep-1" }], responses: [{}, { state_json: '{"n":1}' }] },
  EndEpisode: { requests: [{}, { episode_id: "ep-1" }], responses: [{}, { state_json: "{}" }] },
};

/** Serializes with one definition and deserializes with both: same bytes, same objects. */
function expectSameCodec(a: Method, b: Method, side: "request" | "response", value: object): void {
  const serialize = side === "request" ? "requestSerialize" : "responseSerialize";
  const deserialize = side === "request" ? "requestDeserialize" : "responseDeserialize";
  const wire = b[serialize](value);
  expect(a[serialize](value)).toEqual(wire);
  expect(Buffer.isBuffer(a[serialize](value))).toBe(true);
  const decoded = b[deserialize](wire);
  expect(a[deserialize](wire)).toStrictEqual(decoded);
  // and back: what a deserializer produced (defaults filled in) serializes to the same bytes
  expect(a[serialize](decoded)).toEqual(b[serialize](decoded));
}

describe("the gateway client's static codec matches proto-loader's", () => {
  it("has the same methods, paths, names and streaming flags", () => {
    const shape = (def: typeof loader) =>
      Object.fromEntries(
        Object.entries(def).map(([name, m]) => [
          name,
          [m.path, m.originalName, m.requestStream, m.responseStream],
        ]),
      );
    expect(shape(generated)).toEqual(shape(loader));
    expect(Object.keys(FIXTURES).sort()).toEqual(Object.keys(loader).sort());
  });

  for (const [name, { requests, responses }] of Object.entries(FIXTURES)) {
    it(`${name}: the same bytes and the same objects for its request and response`, () => {
      const a = generated[name] as Method;
      const b = loader[name] as Method;
      for (const value of requests) expectSameCodec(a, b, "request", value);
      for (const value of responses) expectSameCodec(a, b, "response", value);
      // an empty message decodes to the same defaults
      expect(a.requestDeserialize(Buffer.alloc(0))).toStrictEqual(b.requestDeserialize(Buffer.alloc(0)));
      expect(a.responseDeserialize(Buffer.alloc(0))).toStrictEqual(b.responseDeserialize(Buffer.alloc(0)));
    });
  }

  it("decodes as proto-loader does: enum names, Buffers, oneof names, defaults", () => {
    const decoded = (generated.CallTool as Method).responseDeserialize(
      (loader.CallTool as Method).responseSerialize(result),
    ) as { error_code: unknown; content: Record<string, { data?: unknown }>[] };
    expect(decoded.error_code).toBe("EPISODE_LOST");
    expect(Buffer.isBuffer(decoded.content[1]?.image?.data)).toBe(true);
    expect(decoded.content.map((c) => c.kind)).toEqual([
      "text",
      "image",
      "audio",
      "resource",
      "resource_link",
      undefined,
    ]);
    const listed = (generated.ListTools as Method).responseDeserialize(
      (loader.ListTools as Method).responseSerialize({ tools: [tool, { name: "bare" }] }),
    ) as { tools: Record<string, unknown>[] };
    expect(listed.tools[0]?.annotations).toStrictEqual({
      read_only_hint: true,
      destructive_hint: false,
      _read_only_hint: "read_only_hint",
      _destructive_hint: "destructive_hint",
    });
    expect(listed.tools[1]).toMatchObject({ name: "bare", annotations: null, cacheable: false, title: "" });
  });

  it("drops unknown fields in the bytes the same way", () => {
    const wire = (loader.CallTool as Method).requestSerialize(call);
    // field 99, varint 7; field 100, length-delimited "zz": what a newer peer might add
    const extended = Buffer.concat([wire, bytes(0x98, 0x06, 7), bytes(0xa2, 0x06, 2, 0x7a, 0x7a)]);
    const a = generated.CallTool as Method;
    expect(a.requestDeserialize(extended)).toStrictEqual(
      (loader.CallTool as Method).requestDeserialize(extended),
    );
  });

  it("rejects an array as proto-loader does", () => {
    const a = generated.CallTools as Method;
    const b = loader.CallTools as Method;
    expect(() => a.requestSerialize([] as unknown as object)).toThrow(
      (() => {
        try {
          b.requestSerialize([] as unknown as object);
        } catch (err) {
          return (err as Error).message;
        }
        return "no error";
      })(),
    );
  });

  it("agrees on arbitrary tool calls and results", () => {
    const text = fc.string({ unit: "grapheme" });
    const u32 = fc.nat({ max: 4294967295 });
    const blob = fc.uint8Array({ maxLength: 16 }).map((b) => Buffer.from(b));
    const block = fc.oneof(
      fc.record({ text: fc.record({ text }) }),
      fc.record({ image: fc.record({ data: blob, mime_type: text }) }),
      fc.record({ resource: fc.record({ uri: text, blob, text }, { requiredKeys: [] }) }),
      fc.record({ resource_link: fc.record({ uri: text, name: text }) }),
    );
    const callArb = fc.record(
      {
        name: text,
        arguments_json: text,
        deadline_ms: u32,
        cache: fc.constantFrom("CACHE_DEFAULT", "CACHE_BYPASS", 0, 1),
        episode_id: text,
      },
      { requiredKeys: [] },
    );
    const resultArb = fc.record(
      {
        name: text,
        content: fc.array(block, { maxLength: 4 }),
        is_error: fc.boolean(),
        error_code: fc.constantFrom("OK", "TIMEOUT", "UNKNOWN_TOOL", "EPISODE_NOT_FOUND", 2, 12),
        latency_ms: fc.double({ noNaN: true }),
        attempts: u32,
      },
      { requiredKeys: [] },
    );
    const a = generated.CallTools as Method;
    const b = loader.CallTools as Method;
    fc.assert(
      fc.property(
        fc.array(callArb, { maxLength: 4 }),
        fc.array(resultArb, { maxLength: 4 }),
        (calls, results) => {
          expectSameCodec(a, b, "request", { calls });
          expectSameCodec(a, b, "response", { results });
        },
      ),
    );
  });
});

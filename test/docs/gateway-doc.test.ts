// docs/gateway.md states the gateway's defaults, error codes and states; each is checked against the
// code that defines it, so the doc cannot drift. (Key casing is compared loosely: `deadline_ms` and
// `deadlineMs` name the same setting.)

import { gatewayLoggedCallSchema } from "@rlfactory/clients/gateway-call-log";
import {
  BREAKER_STATES,
  DEFAULT_TOOL_POLICY,
  DEFAULT_UPSTREAM_POLICY,
  normaliseConfig,
  UPSTREAM_STATES,
} from "@rlfactory/gateway";
import { ErrorCode } from "@rlfactory/proto/types/ErrorCode";
import { codeSpans, fencedBlockAfter, markdownTable, readDoc } from "@rlfactory/test-support/markdown";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";

const doc = readDoc("docs/gateway.md");

/** `max_deadline_ms`, `maxDeadlineMs` → `maxdeadlinems`. */
const looseKey = (k: string) => k.replaceAll("_", "").toLowerCase();

/** Leaves of a nested object as loose dotted path → value. */
function leaves(value: unknown, prefix = ""): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) {
      for (const [p, leaf] of leaves(v, `${prefix}${looseKey(k)}.`)) out.set(p, leaf);
    }
  } else {
    out.set(prefix.slice(0, -1), value);
  }
  return out;
}

describe("docs/gateway.md", () => {
  it("lists every connection state and every breaker state, nothing else", () => {
    expect(markdownTable(doc, "connection state").map((r) => codeSpans(r["connection state"]!)[0])).toEqual([
      ...UPSTREAM_STATES,
    ]);
    expect(markdownTable(doc, "breaker state").map((r) => codeSpans(r["breaker state"]!)[0])).toEqual([
      ...BREAKER_STATES,
    ]);
    const metrics = markdownTable(doc, "metric");
    const labels = (name: string) =>
      codeSpans(metrics.find((r) => codeSpans(r.metric!).includes(name))?.labels ?? "");
    expect(labels("rlf_gateway_breaker_state")).toEqual([...BREAKER_STATES]);
    expect(labels("rlf_gateway_upstream_state")).toEqual([...UPSTREAM_STATES]);
  });

  it("describes every field of a call in the call log (GET /v1/calls), nothing else", () => {
    const fields = markdownTable(doc, "call field").map((r) => codeSpans(r["call field"]!)[0]);
    expect(fields).toEqual(Object.keys(gatewayLoggedCallSchema.shape));
  });

  it("explains every error_code a call can fail with", () => {
    const documented = markdownTable(doc, "error_code").map((r) => codeSpans(r.error_code!)[0]);
    const failures = Object.values(ErrorCode).filter((c) => c !== "OK" && !c.includes("UNSPECIFIED"));
    expect(new Set(documented)).toEqual(new Set(failures));
    expect(documented).toHaveLength(failures.length);
  });

  it("gives the defaults the code uses in its configuration example", () => {
    const example = parseYaml(fencedBlockAfter(doc, "## Configuration", "yaml")) as Record<string, unknown>;
    const stated = leaves({
      grpc: example.grpc,
      admin: example.admin,
      cache: example.cache,
      maxBatchSize: example.maxBatchSize ?? example.max_batch_size,
      callLog: example.call_log,
      defaults: example.defaults,
    });
    const saved = process.env.RLF_REDIS_URL;
    delete process.env.RLF_REDIS_URL;
    const config = normaliseConfig({});
    if (saved !== undefined) process.env.RLF_REDIS_URL = saved;
    // The parsed config's top-level sections, whatever casing its fields use.
    const sections = new Set(["grpc", "admin", "cache", "maxbatchsize", "calllog"]);
    const actual = new Map([...leaves(config)].filter(([path]) => sections.has(path.split(".")[0] ?? "")));
    for (const [path, value] of leaves({ ...DEFAULT_TOOL_POLICY, ...DEFAULT_UPSTREAM_POLICY }))
      actual.set(`defaults.${path}`, value);
    // `idempotent` has no fixed default (the tool's annotation decides): the doc says so in words.
    expect(stated.get("defaults.idempotent")).toBe("...");
    stated.delete("defaults.idempotent");
    actual.delete("defaults.idempotent");
    expect(Object.fromEntries(stated)).toEqual(Object.fromEntries(actual));
  });

  it("gives model-server examples (here and in tools.md) that load, templates checked against their schemas", () => {
    const examples = [
      fencedBlockAfter(doc, "### Model tools (`kind: model`)", "yaml"),
      fencedBlockAfter(readDoc("docs/tools.md"), "### Model tools", "yaml"),
    ];
    for (const text of examples) {
      const config = normaliseConfig(parseYaml(text), ".", { env: { WRITER_API_KEY: "a-test-key" } });
      const writer = config.servers.find((s) => s.name === "writer");
      expect(writer?.transport).toMatchObject({ kind: "model", tools: [{ name: "summarise" }] });
    }
  });

  it("gives agent-server examples (here and in tools.md) that load", () => {
    const examples = [
      fencedBlockAfter(doc, "### Agent tools (`kind: agent`)", "yaml"),
      fencedBlockAfter(readDoc("docs/tools.md"), "### Agent tools", "yaml"),
    ];
    for (const text of examples) {
      const config = normaliseConfig(parseYaml(text), ".");
      const research = config.servers.find((s) => s.name === "research");
      expect(research?.transport).toMatchObject({
        kind: "agent",
        tools: [{ name: "ask", tools: ["search__search", "writer__summarise"], maxSteps: 4 }],
      });
    }
  });
});

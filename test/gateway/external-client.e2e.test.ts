// A gRPC client nobody in this project wrote (grpcurl, installed by .ci/run) finds the services by
// reflection, checks health and calls a tool.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  type InProcessGateway,
  ROOT,
  startTestGateway,
  testbedStdio,
} from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);

function findGrpcurl(): string | undefined {
  const local = join(ROOT, ".ci/bin/grpcurl");
  if (existsSync(local)) return local;
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir && existsSync(join(dir, "grpcurl"))) return join(dir, "grpcurl");
  }
  return undefined;
}

const grpcurl = findGrpcurl();
// In CI the tool must be there (.ci/run installs it); elsewhere the test says why it is skipped.
const missing = !grpcurl && !process.env.CI;

describe.skipIf(missing)("grpcurl against the gateway (run .ci/run to install grpcurl)", () => {
  let gw: InProcessGateway;
  const g = (...args: string[]) => run(grpcurl ?? "grpcurl", ["-plaintext", ...args], { timeout: 20_000 });

  beforeAll(async () => {
    expect(grpcurl, "grpcurl is not installed: .ci/run installs it into .ci/bin").toBeDefined();
    gw = await startTestGateway({ servers: { testbed: testbedStdio() } });
  });
  afterAll(() => gw?.stop());

  it("lists the services by reflection", async () => {
    const { stdout } = await g(gw.gateway.grpcAddress, "list");
    expect(stdout.split("\n")).toEqual(
      expect.arrayContaining(["grpc.health.v1.Health", "rlfactory.v1.ToolGateway"]),
    );
    const { stdout: methods } = await g(gw.gateway.grpcAddress, "list", "rlfactory.v1.ToolGateway");
    expect(methods).toContain("rlfactory.v1.ToolGateway.CallTools");
  });

  it("checks health", async () => {
    const { stdout } = await g(
      "-d",
      '{"service":"rlfactory.v1.ToolGateway"}',
      gw.gateway.grpcAddress,
      "grpc.health.v1.Health/Check",
    );
    expect(JSON.parse(stdout)).toEqual({ status: "SERVING" });
  });

  it("lists tools and calls one", async () => {
    const { stdout: list } = await g(
      "-d",
      "{}",
      gw.gateway.grpcAddress,
      "rlfactory.v1.ToolGateway/ListTools",
    );
    const names = (JSON.parse(list) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).toContain("testbed__echo");

    const request = JSON.stringify({
      name: "testbed__echo",
      arguments_json: JSON.stringify({ value: "from grpcurl" }),
    });
    const { stdout } = await g("-d", request, gw.gateway.grpcAddress, "rlfactory.v1.ToolGateway/CallTool");
    const result = JSON.parse(stdout) as {
      structured_content_json: string;
      error_code?: string;
      attempts: number;
    };
    expect(JSON.parse(result.structured_content_json)).toEqual({ value: "from grpcurl" });
    expect(result.error_code ?? "OK").toBe("OK");
    expect(result.attempts).toBe(1);
  });
});

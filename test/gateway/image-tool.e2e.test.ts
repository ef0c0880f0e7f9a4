// Images through a real gateway: `rlf tool image --stdio` as its upstream, called over gRPC, through
// the rollout's gateway adapter, the admin HTTP route and the northbound /mcp. The result is an MCP
// image block with its mime type and the rotated size; a repeat is a cache hit (counted in /metrics)
// whose image is the same bytes; an image past the server's `max_image_bytes` is OUTPUT_TOO_LARGE
// naming the limit; the gateway's span carries the image's hash and size, never its bytes.
import { createHash, randomBytes } from "node:crypto";
import { gatewayTools } from "@rlfactory/rollout";
import {
  type ChildGateway,
  type InProcessGateway,
  RLF,
  spawnGateway,
  startTestGateway,
} from "@rlfactory/test-support/gateway-harness";
import { connectHttp } from "@rlfactory/test-support/mcp-client";
import { type OtlpReceiver, startOtlpReceiver } from "@rlfactory/test-support/otlp-receiver";
import { png } from "@rlfactory/test-support/png";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const MAX_IMAGE_BYTES = 8_192;

/** A width x height RGB PNG whose pixels come from `pixel` (a tiny encoder: filter 0 on every row). */

/** A PNG's width and height, from its header. */
const sizeOf = (bytes: Uint8Array) => {
  const b = Buffer.from(bytes);
  return [b.readUInt32BE(16), b.readUInt32BE(20)];
};

describe("image content through the gateway, from `rlf tool image`", () => {
  let gw: InProcessGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      servers: {
        image: {
          command: process.execPath,
          args: [RLF, "tool", "image", "--stdio"],
          policy: { cache: "auto", max_image_bytes: MAX_IMAGE_BYTES },
        },
      },
    });
  }, 60_000);
  afterAll(() => gw?.stop());

  const wide = png(6, 3, (x) => [x * 40, 0, 255 - x * 40]).toString("base64");
  const rotate = { name: "image__rotate", arguments_json: JSON.stringify({ image: wide, degrees: 90 }) };

  it("answers an image block of the right type and size; the repeat is a cache hit with the same bytes", async () => {
    const first = await gw.client.callTool(rotate);
    expect(first.error_code).toBe("OK");
    const image = first.content.find((c) => c.image)?.image;
    expect(image?.mime_type).toBe("image/png");
    expect(sizeOf(image?.data ?? new Uint8Array())).toEqual([3, 6]);
    expect(first.cache_hit).toBe(false);

    const again = await gw.client.callTool(rotate);
    expect(again.cache_hit).toBe(true);
    expect(again.attempts).toBe(0);
    expect(Buffer.from(again.content.find((c) => c.image)?.image?.data ?? [])).toEqual(
      Buffer.from(image?.data ?? []),
    );
    const metrics = await (await fetch(`${gw.gateway.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/rlf_gateway_cache_requests_total\{server="image",result="hit"\} 1\n/);
  });

  it("reaches the rollout's gateway adapter, the admin route and the northbound /mcp as the same image", async () => {
    const [outcome] = await gatewayTools(gw.client).callTools(
      [{ name: "image__crop", arguments: { image: wide, x: 1, y: 0, width: 2, height: 3 } }],
      { trajectoryId: "img/0", deadlineMs: 10_000 },
    );
    expect(outcome?.errorCode).toBe("OK");
    expect(outcome?.images?.map((i) => [i.mimeType, ...sizeOf(i.data)])).toEqual([["image/png", 2, 3]]);

    const res = await fetch(`${gw.gateway.adminUrl}/v1/tools/image__rotate:call`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ arguments: { image: wide, degrees: 90 } }),
    });
    const body = (await res.json()) as { content: { type: string; data?: string; mimeType?: string }[] };
    const block = body.content.find((c) => c.type === "image");
    expect(block?.mimeType).toBe("image/png");
    expect(sizeOf(Buffer.from(block?.data ?? "", "base64"))).toEqual([3, 6]);

    const mcp = await connectHttp(`${gw.gateway.adminUrl}/mcp`, "2025-11-25");
    try {
      const result = await mcp.callTool({ name: "image__rotate", arguments: { image: wide, degrees: 90 } });
      const image = (result.content as { type: string; data?: string; mimeType?: string }[]).find(
        (c) => c.type === "image",
      );
      expect(image?.mimeType).toBe("image/png");
      expect(image?.data).toBe(block?.data);
    } finally {
      await mcp.close();
    }
  });

  it("refuses an image past max_image_bytes with OUTPUT_TOO_LARGE naming its size and the limit", async () => {
    // 64x64 of random pixels: a PNG that cannot compress below the limit
    const noise = randomBytes(64 * 64 * 3);
    const big = png(
      64,
      64,
      (x, y) => [...noise.subarray(3 * (64 * y + x), 3 * (64 * y + x) + 3)] as [number, number, number],
    ).toString("base64");
    const result = await gw.client.callTool({
      name: "image__rotate",
      arguments_json: JSON.stringify({ image: big, degrees: 90 }),
    });
    expect(result.error_code).toBe("OUTPUT_TOO_LARGE");
    expect(result.content).toEqual([]);
    expect(result.error_message).toMatch(
      new RegExp(
        `^image__rotate: image 1 \\(image/png, sha256 [0-9a-f]{12}\\) has \\d+ bytes; the limit is ${MAX_IMAGE_BYTES} \\(max_image_bytes\\)$`,
      ),
    );
  });
});

describe("an image in the gateway's spans", () => {
  let receiver: OtlpReceiver;
  let gw: ChildGateway;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    gw = await spawnGateway(
      { servers: { image: { command: process.execPath, args: [RLF, "tool", "image", "--stdio"] } } },
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
        OTEL_BSP_SCHEDULE_DELAY: "100",
      },
    );
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await receiver?.close();
  });

  it("is its hash, size and type: no span attribute carries the image's bytes", async () => {
    const upload = png(16, 8, (x, y) => [x * 16, y * 32, 128]).toString("base64");
    const result = await gw.client.callTool({
      name: "image__rotate",
      arguments_json: JSON.stringify({ image: upload, degrees: 90 }),
    });
    const data = Buffer.from(result.content.find((c) => c.image)?.image?.data ?? []);
    const [span] = await receiver.waitFor((s) => s.attributes["rlf.image.count"] !== undefined, 15_000);
    expect(span?.attributes).toMatchObject({
      "rlf.image.count": 1,
      "rlf.image.sha256": [createHash("sha256").update(data).digest("hex")],
      "rlf.image.bytes": [data.length],
      "rlf.image.mime_type": ["image/png"],
    });
    const everything = JSON.stringify(receiver.spans().map((s) => s.attributes));
    expect(everything).not.toContain(data.toString("base64").slice(0, 40));
    expect(everything).not.toContain(upload.slice(0, 40));
  });
});

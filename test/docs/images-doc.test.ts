// docs/images.md against the code: its limits are the constants the gateway and the image server use,
// its `shown` table is the record's values and its vision config example parses with the defaults,
// its tool table lists the server's tools, its gateway config example loads, and its image-token table
// is what the placeholder rule computes.

import { IMAGE_SHOWN } from "@rlfactory/contracts";
import { DEFAULT_TOOL_POLICY, normaliseConfig } from "@rlfactory/gateway";
import {
  imagePlaceholders,
  QWEN2_5_VL,
  QWEN3_VL,
  visionConfigSchema,
  visionSettings,
} from "@rlfactory/rollout";
import { codeSpans, fencedBlockAfter, markdownTable, readDoc } from "@rlfactory/test-support/markdown";
import { connectHttp } from "@rlfactory/test-support/mcp-client";
import { createImageServer, DEFAULT_IMAGE_LIMITS } from "@rlfactory/tools";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";

const doc = readDoc("docs/images.md").replaceAll("\n", " ");
const stated = (pattern: RegExp) => Number(pattern.exec(doc.replace(/\s+/g, " "))?.[1]?.replaceAll(",", ""));

describe("docs/images.md", () => {
  it("gives the gateway's default max_image_bytes and max_output_bytes", () => {
    expect(stated(/`max_image_bytes` \(decoded bytes, default ([\d,]+)\)/)).toBe(
      DEFAULT_TOOL_POLICY.maxImageBytes,
    );
    expect(stated(/`max_output_bytes` \(default ([\d,]+)\)/)).toBe(DEFAULT_TOOL_POLICY.maxOutputBytes);
  });

  it("gives the image server's own limits", () => {
    expect(stated(/more than ([\d,]+) bytes \(`--max-image-bytes`\)/)).toBe(
      DEFAULT_IMAGE_LIMITS.maxImageBytes,
    );
    expect(stated(/more than ([\d,]+) pixels \(`--max-pixels`/)).toBe(DEFAULT_IMAGE_LIMITS.maxPixels);
  });

  it("lists the image server's tools, in its order", async () => {
    const listed = markdownTable(readDoc("docs/images.md"), "tool").map((r) => codeSpans(r.tool ?? "")[0]);
    const serving = await createImageServer().serveHttp({ port: 0 });
    const client = await connectHttp(serving.url, "2025-11-25");
    try {
      expect(listed).toEqual((await client.listTools()).tools.map((t) => t.name));
    } finally {
      await client.close();
      await serving.close();
    }
  });

  it("has a gateway config example that loads, with the image limits it shows", () => {
    const config = normaliseConfig(
      parseYaml(fencedBlockAfter(readDoc("docs/images.md"), "## Limits", "yaml")),
      ".",
    );
    const image = config.servers.find((s) => s.name === "image");
    expect(image?.toolPolicy).toMatchObject({
      maxImageBytes: 4_194_304,
      maxOutputBytes: 8_388_608,
      cache: "auto",
    });
  });

  it("gives the image tokens the placeholder rule computes, with the released configs it names", () => {
    const size = (cell: string) => cell.split("×").map((n) => Number(n.trim()));
    const rows = markdownTable(readDoc("docs/images.md"), "image");
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const [width = 0, height = 0] = size(row.image ?? "");
      const ours = [QWEN2_5_VL, QWEN3_VL].map((config) => {
        const p = imagePlaceholders({ width, height }, config);
        return [`${p.resizedWidth} × ${p.resizedHeight}`, p.tokens];
      });
      const documented = Object.values(row).slice(1);
      expect(documented, row.image).toEqual(ours.flat().map(String));
    }
    expect(stated(/`QWEN2_5_VL` \(patch (\d+)/)).toBe(QWEN2_5_VL.patchSize);
    expect(stated(/`QWEN2_5_VL` \(patch \d+, ([\d,]+) to/)).toBe(QWEN2_5_VL.minPixels);
    expect(stated(/`QWEN2_5_VL` \(patch \d+, [\d,]+ to ([\d,]+) pixels/)).toBe(QWEN2_5_VL.maxPixels);
    expect(stated(/`QWEN3_VL` \(patch (\d+)/)).toBe(QWEN3_VL.patchSize);
    expect(stated(/`QWEN3_VL` \(patch \d+, ([\d,]+) to/)).toBe(QWEN3_VL.minPixels);
    expect(stated(/`QWEN3_VL` \(patch \d+, [\d,]+ to ([\d,]+) pixels/)).toBe(QWEN3_VL.maxPixels);
  });

  it("lists what the model may be shown of an image, as the record's `shown` values, in order", () => {
    const rows = markdownTable(readDoc("docs/images.md"), "`shown`");
    expect(rows.map((r) => codeSpans(r["`shown`"] ?? "")[0])).toEqual([...IMAGE_SHOWN]);
  });

  it("has a vision config example that parses, with the defaults the config schema fills in", () => {
    const example = parseYaml(
      fencedBlockAfter(readDoc("docs/images.md"), "## In the model's context", "yaml"),
    );
    const parsed = visionConfigSchema.parse(example.vision);
    const defaults = visionConfigSchema.parse({});
    expect([parsed.max_images, parsed.context_policy, parsed.downscale_max_pixels]).toEqual([
      defaults.max_images,
      defaults.context_policy,
      defaults.downscale_max_pixels,
    ]);
    expect(visionSettings(parsed).patch).toMatchObject({ minPixels: 3136, maxPixels: 1_003_520 });
  });
});

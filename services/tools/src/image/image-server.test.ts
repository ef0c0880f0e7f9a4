// The image tool server over MCP (real HTTP on 127.0.0.1): each edit's pixels and sizes, and its limits.
import type { Client } from "@modelcontextprotocol/client";
import { connectHttp } from "@rlfactory/test-support/mcp-client";
import type { HttpServing } from "@rlfactory/toolkit";
import { Jimp, type JimpInstance } from "jimp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blank } from "./image-ops.ts";
import { createImageServer } from "./image-server.ts";

const RED = 0xff0000ff;
const GREEN = 0x00ff00ff;
const BLUE = 0x0000ffff;
const WHITE = 0xffffffff;

/** A 2x2 PNG: red green / blue white (row by row), base64. */
async function quadrants(): Promise<string> {
  const img = blank(2, 2, RED);
  img.setPixelColor(GREEN, 1, 0);
  img.setPixelColor(BLUE, 0, 1);
  img.setPixelColor(WHITE, 1, 1);
  return (await img.getBuffer("image/png")).toString("base64");
}

async function plain(width: number, height: number, mime: "image/png" | "image/jpeg" = "image/png") {
  return (await blank(width, height, WHITE).getBuffer(mime)).toString("base64");
}

interface ImageBlock {
  type: "image";
  data: string;
  mimeType: string;
}

/** The answer's image block, decoded. */
async function imageOf(result: Awaited<ReturnType<Client["callTool"]>>) {
  expect(result.isError ?? false, JSON.stringify(result.content).slice(0, 300)).toBe(false);
  const block = (result.content as { type: string }[]).find((c) => c.type === "image") as ImageBlock;
  return { block, image: (await Jimp.fromBuffer(Buffer.from(block.data, "base64"))) as JimpInstance };
}

/** Pixels that differ from white. */
function marked(image: JimpInstance): number {
  let n = 0;
  for (let y = 0; y < image.height; y++)
    for (let x = 0; x < image.width; x++) if (image.getPixelColor(x, y) !== WHITE) n++;
  return n;
}

describe("image tool server", () => {
  let serving: HttpServing;
  let client: Client;
  beforeAll(async () => {
    serving = await createImageServer({ maxImageBytes: 64 * 1024, maxPixels: 512 * 512 }).serveHttp({
      port: 0,
    });
    client = await connectHttp(serving.url, "2025-11-25");
  });
  afterAll(async () => {
    await client.close();
    await serving.close();
  });

  it("lists its five tools, read-only and idempotent (so a gateway may cache them)", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["rotate", "crop", "zoom", "grid", "draw_text"]);
    for (const t of tools) expect(t.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
  });

  it("rotates 90° counter-clockwise: the top row becomes the left column, read upwards", async () => {
    const result = await client.callTool({
      name: "rotate",
      arguments: { image: await quadrants(), degrees: 90 },
    });
    const { block, image } = await imageOf(result);
    expect(block.mimeType).toBe("image/png");
    expect([image.width, image.height]).toEqual([2, 2]);
    // red green / blue white  →  green white / red blue
    expect([image.getPixelColor(0, 0), image.getPixelColor(1, 0)]).toEqual([GREEN, WHITE]);
    expect([image.getPixelColor(0, 1), image.getPixelColor(1, 1)]).toEqual([RED, BLUE]);
    expect(result.structuredContent).toMatchObject({ width: 2, height: 2, mime_type: "image/png" });
  });

  it("rotates a non-square image to swapped sides, and -90 is 270", async () => {
    const wide = await plain(6, 3);
    const { image } = await imageOf(
      await client.callTool({ name: "rotate", arguments: { image: wide, degrees: -90 } }),
    );
    expect([image.width, image.height]).toEqual([3, 6]);
  });

  it("crops to the box, and refuses a box outside the image as a tool error", async () => {
    const quad = await quadrants();
    const { image } = await imageOf(
      await client.callTool({ name: "crop", arguments: { image: quad, x: 1, y: 0, width: 1, height: 2 } }),
    );
    expect([image.width, image.height]).toEqual([1, 2]);
    expect([image.getPixelColor(0, 0), image.getPixelColor(0, 1)]).toEqual([GREEN, WHITE]);
    const outside = await client.callTool({
      name: "crop",
      arguments: { image: quad, x: 1, y: 1, width: 2, height: 2 },
    });
    expect(outside).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "the box 2x2 at (1, 1) is not inside the 2x2 image" }],
    });
  });

  it("zooms a region back to the image's size: a 2x zoom on the top-left quarter of 8x8 shows only red", async () => {
    const img = blank(8, 8, WHITE);
    for (let y = 0; y < 4; y++) for (let x = 0; x < 4; x++) img.setPixelColor(RED, x, y);
    const data = (await img.getBuffer("image/png")).toString("base64");
    const { image } = await imageOf(
      await client.callTool({ name: "zoom", arguments: { image: data, factor: 2, x: 2, y: 2 } }),
    );
    expect([image.width, image.height]).toEqual([8, 8]);
    expect(marked(image)).toBe(64);
  });

  it("draws a grid whose lines change exactly the pixels on them", async () => {
    const { image } = await imageOf(
      await client.callTool({ name: "grid", arguments: { image: await plain(9, 9), rows: 2, columns: 2 } }),
    );
    // lines at x = 0, 5 (round 4.5), 8 and y = 0, 5, 8: 3 columns + 3 rows of 9, 9 crossings shared
    expect(marked(image)).toBe(3 * 9 + 3 * 9 - 9);
    expect(image.getPixelColor(5, 2)).toBe(RED);
    expect(image.getPixelColor(2, 2)).toBe(WHITE);
  });

  it("draws text: pixels change, and only below-right of its corner", async () => {
    const { image } = await imageOf(
      await client.callTool({
        name: "draw_text",
        arguments: { image: await plain(64, 32), text: "Hi", x: 20, y: 8 },
      }),
    );
    expect(marked(image)).toBeGreaterThan(0);
    for (let y = 0; y < 8; y++) for (let x = 0; x < 64; x++) expect(image.getPixelColor(x, y)).toBe(WHITE);
  });

  it("answers JPEG for a JPEG, and PNG when asked", async () => {
    const jpeg = await plain(4, 2, "image/jpeg");
    const same = await imageOf(
      await client.callTool({ name: "rotate", arguments: { image: jpeg, degrees: 180 } }),
    );
    expect(same.block.mimeType).toBe("image/jpeg");
    expect(Buffer.from(same.block.data, "base64").subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    const png = await imageOf(
      await client.callTool({ name: "rotate", arguments: { image: jpeg, degrees: 180, format: "png" } }),
    );
    expect(png.block.mimeType).toBe("image/png");
    expect([png.image.width, png.image.height]).toEqual([4, 2]);
  });

  it("refuses what is not PNG or JPEG, and images past its limits, as tool errors", async () => {
    const gif = Buffer.from("GIF89a\x01\x00\x01\x00").toString("base64");
    expect(await client.callTool({ name: "rotate", arguments: { image: gif, degrees: 90 } })).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "image is neither PNG nor JPEG" }],
    });
    const huge = await plain(600, 600);
    expect(await client.callTool({ name: "rotate", arguments: { image: huge, degrees: 90 } })).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "image too large: 600x600 is 360000 pixels; the limit is 262144" }],
    });
    // A valid 8x8 PNG whose header claims 100000x100000: refused from its header, never decoded.
    const claims = Buffer.from(await plain(8, 8), "base64");
    claims.writeUInt32BE(100_000, 16);
    claims.writeUInt32BE(100_000, 20);
    expect(
      await client.callTool({ name: "rotate", arguments: { image: claims.toString("base64"), degrees: 90 } }),
    ).toMatchObject({
      isError: true,
      content: [
        { type: "text", text: "image too large: 100000x100000 is 10000000000 pixels; the limit is 262144" },
      ],
    });
    const jpeg = await plain(600, 600, "image/jpeg");
    expect(await client.callTool({ name: "rotate", arguments: { image: jpeg, degrees: 90 } })).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "image too large: 600x600 is 360000 pixels; the limit is 262144" }],
    });
    const heavy = Buffer.alloc(70 * 1024, 1).toString("base64");
    const refused = await client.callTool({ name: "rotate", arguments: { image: heavy, degrees: 90 } });
    expect(refused.isError).toBe(true);
    expect((refused.content as { text: string }[])[0]?.text).toMatch(
      /^image too large: \d+ bytes; the limit is 65536$/,
    );
  });
});

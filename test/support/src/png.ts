// Test images: a width × height RGB PNG, written by a tiny encoder (filter 0 on every row), so tests
// need no image library and know every pixel they sent.
import { crc32, deflateSync } from "node:zlib";

export type Pixel = (x: number, y: number) => [number, number, number];

/** A smooth gradient: each pixel differs from its neighbours. */
export const gradient: Pixel = (x, y) => [x * 30, y * 40, 200];

export function png(width: number, height: number, pixel: Pixel = gradient): Buffer {
  const raw = Buffer.alloc(height * (1 + 3 * width));
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) raw.set(pixel(x, y), y * (1 + 3 * width) + 1 + 3 * x);
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

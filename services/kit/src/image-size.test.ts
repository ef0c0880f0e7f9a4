import { describe, expect, it } from "vitest";
import { imageHeaderFormat, imageHeaderSize } from "./image-size.ts";

/** A PNG's signature and IHDR chunk (the CRC is not checked: only the header is read). */
function pngHeader(width: number, height: number): Buffer {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write("IHDR", 12, "latin1");
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  b.writeUInt8(8, 24); // bit depth
  b.writeUInt8(2, 25); // truecolour
  return b;
}

/** A marker segment: FF, marker, length (2, itself included), payload. */
function segment(marker: number, payload: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

function sof(marker: number, width: number, height: number): Buffer {
  const p = Buffer.alloc(15);
  p.writeUInt8(8, 0);
  p.writeUInt16BE(height, 1);
  p.writeUInt16BE(width, 3);
  p.writeUInt8(3, 5);
  return segment(marker, p);
}

const SOI = Buffer.from([0xff, 0xd8]);

describe("imageHeaderSize", () => {
  it("reads a PNG's IHDR, whatever canvas it claims", () => {
    expect(imageHeaderSize(pngHeader(640, 480))).toEqual({ format: "png", width: 640, height: 480 });
    expect(imageHeaderSize(pngHeader(100_000, 3))).toEqual({ format: "png", width: 100_000, height: 3 });
  });

  it("reads a JPEG's first frame header past APP segments, a DHT and fill bytes", () => {
    const jpeg = Buffer.concat([
      SOI,
      segment(0xe0, Buffer.from("JFIF\0\x01\x01\0\0\x01\0\x01\0\0", "latin1")),
      segment(0xe1, Buffer.alloc(300, 7)), // EXIF
      segment(0xc4, Buffer.alloc(20, 1)), // DHT: a C-marker that is not a frame
      Buffer.from([0xff, 0xff]), // fill bytes before the next marker
      sof(0xc2, 1920, 1080), // progressive
      segment(0xda, Buffer.alloc(10)),
    ]);
    expect(imageHeaderSize(jpeg)).toEqual({ format: "jpeg", width: 1920, height: 1080 });
    expect(imageHeaderSize(Buffer.concat([SOI, sof(0xc0, 3, 65535)]))).toEqual({
      format: "jpeg",
      width: 3,
      height: 65535,
    });
  });

  it("says nothing for other bytes or a header cut short", () => {
    expect(imageHeaderFormat(Buffer.from("GIF89a......"))).toBeUndefined();
    expect(imageHeaderSize(Buffer.from("GIF89a......"))).toBeUndefined();
    expect(imageHeaderSize(pngHeader(64, 64).subarray(0, 20))).toBeUndefined();
    const cut = Buffer.concat([SOI, segment(0xe0, Buffer.alloc(16)), sof(0xc0, 64, 64).subarray(0, 6)]);
    expect(imageHeaderFormat(cut)).toBe("jpeg");
    expect(imageHeaderSize(cut)).toBeUndefined();
    // a segment that is not a marker where one must be
    expect(
      imageHeaderSize(Buffer.concat([SOI, Buffer.from([0xff, 0xe0, 0, 4, 0, 0, 0x12, 0x34, 0, 0, 0, 0])])),
    ).toBeUndefined();
  });
});

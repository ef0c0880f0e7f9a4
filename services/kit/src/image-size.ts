// An image's format and size (width × height in pixels) read from its PNG or JPEG header, without
// decoding it: what the image server checks before decoding an upload, and what the rollout needs to
// count an image's placeholder tokens.

export type ImageHeaderFormat = "png" | "jpeg";

export interface ImageHeaderSize {
  format: ImageHeaderFormat;
  width: number;
  height: number;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** PNG (by its 8-byte signature) or JPEG (by its SOI marker and the next marker's 0xFF); else undefined. */
export function imageHeaderFormat(bytes: Uint8Array): ImageHeaderFormat | undefined {
  if (bytes.length >= 8 && PNG_SIGNATURE.every((b, i) => bytes[i] === b)) return "png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
  return undefined;
}

/**
 * The format and size a PNG (its IHDR chunk) or JPEG (its first start-of-frame marker) states, or
 * undefined when the bytes are neither or the header is cut short. The size is as stored: a JPEG's
 * EXIF orientation is not applied.
 */
export function imageHeaderSize(bytes: Uint8Array): ImageHeaderSize | undefined {
  const format = imageHeaderFormat(bytes);
  if (format === undefined) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (format === "png") {
    // IHDR is the first chunk: length (4), "IHDR" (4), width (4), height (4)
    if (bytes.length < 24) return undefined;
    return { format, width: view.getUint32(16), height: view.getUint32(20) };
  }
  let at = 2;
  while (at + 1 < bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1] ?? 0;
    if (marker === 0xff) {
      at += 1; // fill byte before a marker
      continue;
    }
    // markers without a length: TEM, RST0-RST7, SOI, EOI
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd9)) {
      at += 2;
      continue;
    }
    if (at + 3 >= bytes.length) return undefined;
    // SOF0-SOF15 but DHT (C4), JPG (C8) and DAC (CC): length (2), precision (1), height (2), width (2)
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (at + 9 > bytes.length) return undefined;
      return { format, height: view.getUint16(at + 5), width: view.getUint16(at + 7) };
    }
    at += 2 + view.getUint16(at + 2);
  }
  return undefined;
}

// The edits, each a plain function over a decoded image (Jimp): rotate, crop, zoom, grid overlay, text.
// Arguments are checked by the tools' schemas; what depends on the image itself (a box inside it) is
// checked here and reported as a ToolError the model sees.
import { ToolError } from "@rlfactory/toolkit";
import { Jimp, type JimpInstance, loadFont } from "jimp";
import { SANS_16_BLACK, SANS_16_WHITE, SANS_32_BLACK, SANS_32_WHITE } from "jimp/fonts";

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

function checkBox(image: JimpInstance, box: Box): void {
  if (box.x + box.width > image.width || box.y + box.height > image.height)
    throw new ToolError(
      `the box ${box.width}x${box.height} at (${box.x}, ${box.y}) is not inside the ${image.width}x${image.height} image`,
    );
}

/** Turns the image `degrees` counter-clockwise (as PIL's Image.rotate); other than multiples of 90 the canvas grows. */
export function rotate(image: JimpInstance, degrees: number): JimpInstance {
  const turn = ((degrees % 360) + 360) % 360;
  if (turn !== 0) image.rotate(turn);
  return image;
}

/** The box's pixels, as a new image of the box's size. */
export function crop(image: JimpInstance, box: Box): JimpInstance {
  checkBox(image, box);
  return image.crop({ x: box.x, y: box.y, w: box.width, h: box.height }) as JimpInstance;
}

/**
 * The image's centre region 1/factor of its size around (cx, cy) (default: the middle), enlarged back to
 * the image's own size: what a magnifying glass shows. The region is moved inside the image where needed.
 */
export function zoom(image: JimpInstance, factor: number, cx?: number, cy?: number): JimpInstance {
  const { width, height } = image;
  const w = Math.max(1, Math.round(width / factor));
  const h = Math.max(1, Math.round(height / factor));
  const x = Math.min(Math.max(0, Math.round((cx ?? width / 2) - w / 2)), width - w);
  const y = Math.min(Math.max(0, Math.round((cy ?? height / 2) - h / 2)), height - h);
  image.crop({ x, y, w, h });
  return image.resize({ w: width, h: height }) as JimpInstance;
}

/** `rows` × `columns` cells outlined by 1-pixel lines of `color` (RGBA as 0xRRGGBBAA), the border included. */
export function grid(image: JimpInstance, rows: number, columns: number, color: number): JimpInstance {
  const { width, height } = image;
  const xs = new Set<number>();
  const ys = new Set<number>();
  for (let c = 0; c <= columns; c++) xs.add(Math.min(width - 1, Math.round((c * width) / columns)));
  for (let r = 0; r <= rows; r++) ys.add(Math.min(height - 1, Math.round((r * height) / rows)));
  for (const x of xs) for (let y = 0; y < height; y++) image.setPixelColor(color, x, y);
  for (const y of ys) for (let x = 0; x < width; x++) image.setPixelColor(color, x, y);
  return image;
}

const FONTS = {
  "16-black": SANS_16_BLACK,
  "16-white": SANS_16_WHITE,
  "32-black": SANS_32_BLACK,
  "32-white": SANS_32_WHITE,
} as const;
const loaded = new Map<string, ReturnType<typeof loadFont>>();

/** `text` drawn with its top-left corner at (x, y), in Open Sans (bundled bitmap font) of `size` px. */
export async function drawText(
  image: JimpInstance,
  text: string,
  x: number,
  y: number,
  size: 16 | 32,
  color: "black" | "white",
): Promise<JimpInstance> {
  if (x >= image.width || y >= image.height)
    throw new ToolError(`(${x}, ${y}) is outside the ${image.width}x${image.height} image`);
  const key = `${size}-${color}` as keyof typeof FONTS;
  let font = loaded.get(key);
  if (!font) {
    font = loadFont(FONTS[key]);
    loaded.set(key, font);
  }
  image.print({ font: await font, x, y, text });
  return image;
}

/** A blank image (tests and examples). */
export function blank(width: number, height: number, color: number): JimpInstance {
  return new Jimp({ width, height, color }) as JimpInstance;
}

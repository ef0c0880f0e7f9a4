// A vision-language request's images, as vLLM (`multi_modal_data.image`) and SGLang (`image_data`)
// take them beside token ids: data URLs (no URL is fetched). Checked as an engine checks them: one
// `<|vision_start|><|image_pad|>…<|vision_end|>` span in the prompt per image, in order, each with the
// number of pads the processor rules give the image (Qwen2.5-VL's released config unless the server
// says otherwise); a mismatch is a 400. What the policy reads in place of each span is a one-line label
// with the image's size and hash, so a scripted answer can quote what it saw.
import { createHash } from "node:crypto";
import { imageHeaderSize } from "@rlfactory/kit";
import {
  IMAGE_PAD,
  imagePlaceholders,
  type ModelTokenizer,
  QWEN2_5_VL,
  VISION_END,
  VISION_START,
  type VisionPatchConfig,
} from "@rlfactory/rollout";
import { badRequest } from "./errors.ts";

/** One image a request carried. */
export interface SimImage {
  mimeType: string;
  data: Buffer;
  sha256: string;
  width: number;
  height: number;
}

const DATA_URL = /^data:(image\/[A-Za-z0-9.+-]+);base64,([A-Za-z0-9+/]*={0,2})$/;

/** Decodes the data URLs of `field`; a URL of another kind is a 400 (the simulator fetches nothing). */
export function decodeImages(urls: readonly string[] | null | undefined, field: string): SimImage[] {
  return (urls ?? []).map((url, i) => {
    const m = DATA_URL.exec(url);
    if (m === null) throw badRequest(`${field}[${i}] must be a base64 data: URL of an image`, field);
    const data = Buffer.from(m[2]!, "base64");
    const size = imageHeaderSize(data);
    if (size === undefined) throw badRequest(`${field}[${i}] is not a PNG or JPEG`, field);
    return {
      mimeType: m[1]!,
      data,
      sha256: createHash("sha256").update(data).digest("hex"),
      width: size.width,
      height: size.height,
    };
  });
}

/** Refuses a prompt whose placeholder spans do not match its images (count, order, pads per image). */
export function checkImageSpans(
  promptIds: readonly number[],
  images: readonly SimImage[],
  tokenizer: ModelTokenizer,
  processor: VisionPatchConfig,
): void {
  const start = tokenizer.tokenId(VISION_START);
  const pad = tokenizer.tokenId(IMAGE_PAD);
  const end = tokenizer.tokenId(VISION_END);
  const spans: number[] = [];
  for (let i = 0; i < promptIds.length; i++) {
    if (promptIds[i] !== start) continue;
    let j = i + 1;
    while (promptIds[j] === pad) j++;
    if (promptIds[j] === end) spans.push(j - i - 1);
    i = j;
  }
  if (spans.length !== images.length) {
    throw badRequest(
      `the prompt has ${spans.length} image placeholder spans but the request carries ${images.length} images`,
      "prompt",
    );
  }
  images.forEach((image, k) => {
    const want = imagePlaceholders(image, processor).tokens;
    if (spans[k] !== want) {
      throw badRequest(
        `image ${k} (${image.width}x${image.height}) needs ${want} ${IMAGE_PAD} tokens; the prompt has ${spans[k]}`,
        "prompt",
      );
    }
  });
}

/** A request's images, decoded and checked against its prompt (Qwen2.5-VL's released processor config). */
export function requestImages(
  promptIds: readonly number[],
  urls: readonly string[] | null | undefined,
  field: string,
  tokenizer: ModelTokenizer,
): SimImage[] {
  const images = decodeImages(urls, field);
  checkImageSpans(promptIds, images, tokenizer, QWEN2_5_VL);
  return images;
}

/** The label the policy reads in place of an image's span. */
export function imageLabel(image: SimImage): string {
  return `[image ${image.width}x${image.height} ${image.mimeType} sha256 ${image.sha256.slice(0, 12)}]`;
}

const SPAN = /<\|vision_start\|>(?:<\|image_pad\|>)*<\|vision_end\|>/g;

/** The decoded prompt with each image span replaced by its image's label (in order). */
export function labelImageSpans(prompt: string, images: readonly SimImage[]): string {
  let k = 0;
  return prompt.replace(SPAN, () => {
    const image = images[k++];
    return image === undefined ? "[image]" : imageLabel(image);
  });
}

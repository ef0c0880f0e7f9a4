// The rollout config's `vision` section: how tool-result images enter a vision-language model's
// context. Parsed once into `VisionSettings`; which chat templates count as vision-language is
// decided by `templateRendersImages` (the template renders `<|vision_start|>`).
import { z } from "zod";
import { PreprocessorConfig, type VisionPatchConfig } from "./image-placeholders.ts";

/** What happens to an image past `max_images` in one trajectory (the context is append-only, see docs/images.md). */
export const IMAGE_CONTEXT_POLICIES = ["drop", "downscale"] as const;
export type ImageContextPolicy = (typeof IMAGE_CONTEXT_POLICIES)[number];

export const visionConfigSchema = z.strictObject({
  /**
   * The model's image processor settings (its preprocessor_config.json fields: `patch_size`,
   * `merge_size`, `min_pixels`, `max_pixels` or `size: {shortest_edge, longest_edge}`); default:
   * Qwen2.5-VL's released config. `min_pixels` / `max_pixels` are the tokens-per-image budget: they
   * must equal the inference server's processor settings (vLLM `--mm-processor-kwargs`).
   */
  processor: PreprocessorConfig.in.default({}),
  /** Images shown to the model at the full budget per trajectory; later ones meet `context_policy`. */
  max_images: z.number().int().min(0).default(8),
  /**
   * Images past `max_images`: `drop` (a short text placeholder instead of the image, which is still
   * recorded) or `downscale` (resized to the size the processor gives it under `downscale_max_pixels`,
   * and shown and sent at that size).
   */
  context_policy: z.enum(IMAGE_CONTEXT_POLICIES).default("drop"),
  /** The pixel budget of a downscaled image (default 200,704 = 256 tokens of 28 × 28 pixels). */
  downscale_max_pixels: z.number().int().positive().default(200_704),
});
export type VisionConfig = z.infer<typeof visionConfigSchema>;

/** The parsed section, as the loop reads it. */
export interface VisionSettings {
  patch: VisionPatchConfig;
  maxImages: number;
  contextPolicy: ImageContextPolicy;
  downscaleMaxPixels: number;
}

export function visionSettings(config: VisionConfig | undefined): VisionSettings {
  const c = config ?? visionConfigSchema.parse({});
  return {
    patch: PreprocessorConfig.parse(c.processor),
    maxImages: c.max_images,
    contextPolicy: c.context_policy,
    downscaleMaxPixels: c.downscale_max_pixels,
  };
}

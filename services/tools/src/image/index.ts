// The `image` tool server for `rlf tool image [--max-image-bytes N] [--max-pixels N]`: image edits
// (jimp) over uploaded PNG/JPEG, answered as MCP image content.

export { DEFAULT_IMAGE_LIMITS, type ImageLimits } from "./image-codec.ts";
export { imageServerEntry } from "./image-entry.ts";
export { createImageServer } from "./image-server.ts";

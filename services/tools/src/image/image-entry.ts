// How `rlf tool image` is listed and started: its flags, and a factory that loads the server (and
// jimp) only when one is created.
import { z } from "zod";
import type { ToolServerEntry } from "../tool-server-entry.ts";

const wholeNumber = (flag: string) =>
  z
    .string()
    .regex(/^\d+$/, `${flag} must be a whole number`)
    .transform(Number)
    .pipe(z.number().int().min(1))
    .optional();

const ImageFlags = z.object({
  "max-image-bytes": wholeNumber("--max-image-bytes"),
  "max-pixels": wholeNumber("--max-pixels"),
});

export const imageServerEntry: ToolServerEntry = {
  summary: "image edits (rotate, crop, zoom, grid, draw text) over uploaded PNG/JPEG, answered as MCP images",
  options: { "max-image-bytes": { type: "string" }, "max-pixels": { type: "string" } },
  usage: "[--max-image-bytes N] [--max-pixels N]",
  create: (values) => {
    const flags = ImageFlags.safeParse(values);
    if (!flags.success) {
      throw new Error(flags.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
    }
    const maxImageBytes = flags.data["max-image-bytes"];
    const maxPixels = flags.data["max-pixels"];
    return import("./image-server.ts").then((m) =>
      m.createImageServer({
        ...(maxImageBytes !== undefined ? { maxImageBytes } : {}),
        ...(maxPixels !== undefined ? { maxPixels } : {}),
      }),
    );
  },
};

// A wire (proto) content block in its JSON form: MCP-shaped, binary as base64. The admin HTTP route
// answers with it, and the northbound MCP server returns it to MCP clients.
import type { Content } from "@rlfactory/proto/types/Content";

export function toJsonContent(c: Content): Record<string, unknown> {
  if (c.text) return { type: "text", text: c.text.text };
  if (c.image) return { type: "image", data: b64(c.image.data), mimeType: c.image.mime_type };
  if (c.audio) return { type: "audio", data: b64(c.audio.data), mimeType: c.audio.mime_type };
  if (c.resource) {
    const r = c.resource;
    return {
      type: "resource",
      resource: { uri: r.uri, mimeType: r.mime_type, text: r.text, blob: b64(r.blob) },
    };
  }
  if (c.resource_link) {
    const l = c.resource_link;
    return {
      type: "resource_link",
      uri: l.uri,
      name: l.name,
      description: l.description,
      mimeType: l.mime_type,
    };
  }
  return { type: "unknown" };
}

function b64(data: Buffer | Uint8Array | string | undefined): string {
  if (data === undefined) return "";
  return typeof data === "string" ? data : Buffer.from(data).toString("base64");
}

// A pass-through HTTP proxy in front of a Streamable HTTP MCP server that destroys the socket of the
// JSON-RPC requests a test picks (as a server whose keep-alive socket was reset mid-request), and counts
// the JSON-RPC methods it forwarded: a test proves by them that a client did not reconnect (no second
// `initialize` / `server/discover`) or that it pinged.
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One JSON-RPC message of a POST body (a request or a notification). */
export interface JsonRpcMessage {
  method?: string;
  params?: { name?: string; arguments?: Record<string, unknown> } & Record<string, unknown>;
}

export interface SocketDroppingProxy {
  /** The proxied MCP endpoint (the target's path on the proxy's origin). */
  url: string;
  /** JSON-RPC methods forwarded to the target, in order. */
  forwarded: string[];
  /** Requests whose socket was destroyed instead of forwarded. */
  dropped: JsonRpcMessage[];
  close(): Promise<void>;
}

export async function startSocketDroppingProxy(
  target: string,
  drop: (message: JsonRpcMessage) => boolean,
): Promise<SocketDroppingProxy> {
  const targetUrl = new URL(target);
  const forwarded: string[] = [];
  const dropped: JsonRpcMessage[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const message = parseMessage(body);
    if (message && drop(message)) {
      dropped.push(message);
      req.socket.destroy();
      return;
    }
    if (message?.method) forwarded.push(message.method);
    const upstream = request(
      {
        host: targetUrl.hostname,
        port: targetUrl.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: targetUrl.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    // The target gone: the client sees its socket cut, as it would without the proxy.
    upstream.on("error", () => res.destroy());
    res.once("close", () => upstream.destroy());
    upstream.end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${targetUrl.pathname}`,
    forwarded,
    dropped,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function parseMessage(body: Buffer): JsonRpcMessage | undefined {
  if (body.length === 0) return undefined;
  try {
    const parsed: unknown = JSON.parse(body.toString("utf8"));
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as JsonRpcMessage)
      : undefined;
  } catch {
    return undefined;
  }
}

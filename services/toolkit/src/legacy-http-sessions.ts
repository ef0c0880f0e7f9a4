// 2025-era Streamable HTTP (initialize handshake, protocol 2025-06-18 / 2025-11-25) served with
// sessions: one MCP instance per `Mcp-Session-Id`, created by `initialize` and kept until the
// client DELETEs it, the server shuts down, or it sits idle (no request, no open stream such as
// the GET notification stream) longer than the idle timeout: clients that vanish without DELETE
// must not leak sessions. Long-lived gateway connections thus reuse one instance, and
// notifications/cancelled and tools/list_changed (on the GET stream) reach it.
import { randomUUID } from "node:crypto";
import { type Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { jsonRpcErrorResponse } from "./json-rpc-error-response.ts";
import type { LiveInstances } from "./live-instances.ts";
import { trackedResponse } from "./tracked-response.ts";

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  /** Responses (streams included) still being produced. */
  open: number;
  lastActive: number;
}

export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;

export class LegacyHttpSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly createInstance: () => Server;
  private readonly live: LiveInstances;
  private readonly idleMs: number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(createInstance: () => Server, live: LiveInstances, idleMs = DEFAULT_SESSION_IDLE_MS) {
    this.createInstance = createInstance;
    this.live = live;
    this.idleMs = idleMs;
    this.sweeper = setInterval(() => this.closeIdle(), Math.min(idleMs, 60_000));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  async handle(request: Request): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const session = this.sessions.get(sessionId);
      if (session === undefined) return jsonRpcErrorResponse(404, -32_001, "Session not found");
      return this.tracked(session, () => session.transport.handleRequest(request));
    }
    if (request.method !== "POST") {
      return jsonRpcErrorResponse(400, -32_000, "Bad Request: Mcp-Session-Id header is required");
    }
    // No session yet: only an initialize request opens one (the transport refuses anything else).
    const server = this.live.add(this.createInstance());
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, session);
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id);
      },
    });
    const session: Session = { transport, server, open: 0, lastActive: Date.now() };
    const previousOnClose = server.onclose;
    server.onclose = () => {
      if (transport.sessionId !== undefined) this.sessions.delete(transport.sessionId);
      previousOnClose?.();
    };
    await server.connect(transport);
    const response = await this.tracked(session, () => transport.handleRequest(request));
    if (transport.sessionId === undefined) await server.close();
    return response;
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const closing = [...this.sessions.values()].map((s) => s.server.close().catch(() => {}));
    this.sessions.clear();
    await Promise.all(closing);
  }

  private async tracked(session: Session, handle: () => Promise<Response>): Promise<Response> {
    session.open++;
    session.lastActive = Date.now();
    const end = () => {
      session.open--;
      session.lastActive = Date.now();
    };
    try {
      return trackedResponse(await handle(), end);
    } catch (error) {
      end();
      throw error;
    }
  }

  private closeIdle(): void {
    const now = Date.now();
    for (const [id, session] of this.sessions) {
      if (session.open > 0 || now - session.lastActive < this.idleMs) continue;
      this.sessions.delete(id);
      void session.server.close().catch(() => {});
    }
  }
}

// readOversizedBody on a real node:http server over loopback: a body declared over the limit is read to
// its end before the 413, so the same keep-alive connection serves the next request; one declared beyond
// the drain factor is left unread and its answer closes the connection; one within the limit is the route's.
import { Agent, createServer, type IncomingMessage, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OVERSIZED_BODY_DRAIN_FACTOR, readOversizedBody } from "./oversized-body.ts";

const LIMIT = 64 * 1024;

interface Answer {
  status: number;
  connection: string | undefined;
  reusedSocket: boolean;
  body: string;
}

/** POSTs `bytes` bytes with a Content-Length and waits for the whole answer. */
function post(url: string, agent: Agent, bytes: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/`, { method: "POST", agent, headers: { "content-length": bytes } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          connection: res.headers.connection,
          reusedSocket: req.reusedSocket,
          body,
        }),
      );
    });
    req.on("error", reject);
    req.end(Buffer.alloc(bytes, 0x61));
  });
}

describe("readOversizedBody", () => {
  let server: Server;
  let url: string;
  /** Bytes of each body the route read itself (the bodies within the limit). */
  const routeRead: number[] = [];
  /** What readOversizedBody said of each body over the limit. */
  const refused: unknown[] = [];

  beforeAll(async () => {
    server = createServer(async (req: IncomingMessage, res) => {
      const oversized = await readOversizedBody(req, LIMIT);
      if (oversized !== undefined) {
        refused.push(oversized);
        res.writeHead(413, oversized.drained ? {} : { connection: "close" });
        res.end(JSON.stringify(oversized));
        return;
      }
      let n = 0;
      for await (const chunk of req) n += (chunk as Buffer).length;
      routeRead.push(n);
      res.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("reads a body over the limit to its end, answers 413 on a connection that serves the next request", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const big = LIMIT * 2;
      const first = await post(url, agent, big);
      expect(first.status).toBe(413);
      expect(JSON.parse(first.body)).toEqual({ declared: big, drained: true });
      expect(first.connection).not.toBe("close");
      const second = await post(url, agent, 10);
      expect([second.status, second.body, second.reusedSocket]).toEqual([200, "ok", true]);
      expect(routeRead.at(-1)).toBe(10);
    } finally {
      agent.destroy();
    }
  });

  it(`leaves a body declared beyond ${OVERSIZED_BODY_DRAIN_FACTOR}× the limit unread: the answer closes the connection`, async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const huge = LIMIT * OVERSIZED_BODY_DRAIN_FACTOR + 1;
      const first = await post(url, agent, huge).catch((err: Error) => err);
      expect(refused.at(-1)).toEqual({ declared: huge, drained: false });
      // the client may still be writing when the server closes: a reset is what an unread body gets
      if (!(first instanceof Error)) {
        expect(first.status).toBe(413);
        expect(JSON.parse(first.body)).toEqual({ declared: huge, drained: false });
        expect(first.connection).toBe("close");
      }
      const next = await post(url, agent, 10);
      expect([next.status, next.reusedSocket]).toEqual([200, false]);
    } finally {
      agent.destroy();
    }
  });

  it("leaves a body within the limit to the route", async () => {
    const agent = new Agent({ keepAlive: false });
    const answer = await post(url, agent, LIMIT);
    expect([answer.status, answer.body]).toEqual([200, "ok"]);
    expect(routeRead.at(-1)).toBe(LIMIT);
  });
});

import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { closeIfBodyUnread } from "@/lib/http/close-unread.mjs";

/** A server whose handler answers without reading the body (as a 408 or a 413 does), or after reading it. */
function server(options: { readBody: boolean; guard: boolean }): Promise<Server> {
  const s = createServer((req, res) => {
    if (options.guard) closeIfBodyUnread(req, res);
    const answer = () => {
      res.statusCode = options.readBody ? 200 : 408;
      res.end("done");
    };
    if (options.readBody) req.resume().on("end", answer);
    else setTimeout(answer, 20);
  });
  return new Promise((resolve) => s.listen(0, "127.0.0.1", () => resolve(s)));
}

/** Sends `request` on a raw socket; resolves with what came back and whether the server closed the connection within `waitMs`. */
function exchange(s: Server, request: string, waitMs = 1_000): Promise<{ response: string; closed: boolean }> {
  const port = (s.address() as { port: number }).port;
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let response = "";
    socket.on("data", (chunk) => (response += chunk));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ response, closed: false });
    }, waitMs);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ response, closed: true });
    });
    socket.write(request);
  });
}

const stalled = "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n0123456789";
const whole = "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n0123456789";

describe("closing a connection whose request body was not read", () => {
  let s: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (s ? s.close(() => resolve()) : resolve())));

  it("closes the connection once it answered a body that stopped arriving", async () => {
    s = await server({ readBody: false, guard: true });
    const { response, closed } = await exchange(s, stalled);
    expect(response).toMatch(/^HTTP\/1.1 408/);
    expect(response).toMatch(/connection: close/i);
    expect(closed).toBe(true);
  });

  it("without it, Node keeps that connection open to drain a body that never comes", async () => {
    s = await server({ readBody: false, guard: false });
    const { response, closed } = await exchange(s, stalled);
    expect(response).toMatch(/^HTTP\/1.1 408/);
    expect(closed).toBe(false);
  });

  it("keeps a connection alive when the body was read to its end", async () => {
    s = await server({ readBody: true, guard: true });
    const { response, closed } = await exchange(s, whole);
    expect(response).toMatch(/^HTTP\/1.1 200/);
    expect(response).toMatch(/connection: keep-alive/i);
    expect(closed).toBe(false);
  });
});

import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { closeIfBodyStalled } from "@/lib/http/close-stalled.mjs";

/** A server whose handler answers `status` without reading the body (as the stalled-body 408 does), or 200 after reading it. */
function server(options: { status: number | "read"; guard: boolean }): Promise<Server> {
  const s = createServer((req, res) => {
    if (options.guard) closeIfBodyStalled(req, res);
    if (options.status === "read") {
      req.resume().on("end", () => res.end("done"));
      return;
    }
    const status = options.status;
    setTimeout(() => {
      res.statusCode = status;
      res.end("no");
    }, 20);
  });
  return new Promise((resolve) => s.listen(0, "127.0.0.1", () => resolve(s)));
}

/**
 * Sends `request` on a raw socket, then a byte of body every 100 ms (a client that goes on
 * trickling after its answer); resolves with the response and whether the server closed
 * the connection within `waitMs`.
 */
function exchange(s: Server, request: string, options: { trickle: boolean; waitMs?: number }) {
  const port = (s.address() as { port: number }).port;
  return new Promise<{ response: string; closed: boolean }>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let response = "";
    socket.on("data", (chunk) => (response += chunk));
    socket.on("error", () => {});
    const trickle = options.trickle ? setInterval(() => socket.writable && socket.write("x"), 100) : undefined;
    const timer = setTimeout(() => {
      clearInterval(trickle);
      socket.destroy();
      resolve({ response, closed: false });
    }, options.waitMs ?? 1_500);
    socket.on("close", () => {
      clearInterval(trickle);
      clearTimeout(timer);
      resolve({ response, closed: true });
    });
    socket.write(request);
  });
}

const partial = "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\n\r\n0123456789";
const whole = "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n0123456789";

describe("closing the connection of a request whose body stalled", () => {
  let s: Server | undefined;
  afterEach(async () => {
    if (!s) return;
    const server = s;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("closes it once the 408 is sent, however the client goes on trickling", async () => {
    s = await server({ status: 408, guard: true });
    const { response, closed } = await exchange(s, partial, { trickle: true });
    expect(response).toMatch(/^HTTP\/1.1 408/);
    expect(response).toMatch(/connection: close/i);
    expect(closed).toBe(true);
  });

  it("without it, a client trickling bytes keeps the connection after its 408 (until Node's request timeout)", async () => {
    s = await server({ status: 408, guard: false });
    const { response, closed } = await exchange(s, partial, { trickle: true });
    expect(response).toMatch(/^HTTP\/1.1 408/);
    expect(closed).toBe(false);
  });

  it("leaves other early answers to Node (a 413 while the client still uploads is not cut off)", async () => {
    s = await server({ status: 413, guard: true });
    const { response } = await exchange(s, partial, { trickle: true, waitMs: 500 });
    expect(response).toMatch(/^HTTP\/1.1 413/);
    expect(response).not.toMatch(/connection: close/i);
  });

  it("keeps a connection alive when the body was read to its end", async () => {
    s = await server({ status: "read", guard: true });
    const { response, closed } = await exchange(s, whole, { trickle: false, waitMs: 500 });
    expect(response).toMatch(/^HTTP\/1.1 200/);
    expect(response).toMatch(/connection: keep-alive/i);
    expect(closed).toBe(false);
  });

  it("is what the server in front of Next does with every request, first", () => {
    const start = readFileSync(new URL("../../scripts/start.mjs", import.meta.url), "utf8");
    expect(start).toMatch(/createServer\(\(req, res\) => \{\s*closeIfBodyStalled\(req, res\);/);
  });
});

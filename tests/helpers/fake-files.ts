import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * How a fake platform serves one file: its real bytes, or a misbehaviour seen in the
 * wild — a server that sends the headers and then nothing (`hang`), one that says
 * no Content-Length and streams more than it should (`streamBytes`), a status
 * (LINE's 202 while a video is prepared, a 404), a delay.
 */
export type FileSpec = {
  bytes?: Buffer;
  contentType?: string;
  status?: number;
  /** Headers and a first chunk, then silence (until the client gives up). */
  hang?: boolean;
  /** Chunked (no Content-Length): this many bytes of filler, written as fast as the client reads. */
  streamBytes?: number;
  /** Answer after this long. */
  delayMs?: number;
  /** Answer these statuses first, one per request, then the file (e.g. [202, 202]). */
  firstStatuses?: number[];
};

export type FileStats = { requests: number; bytesSent: number; headers: IncomingMessage["headers"][] };

/** Serves `spec` on `res`, counting what went out in `stats`. */
export async function serveFile(req: IncomingMessage, res: ServerResponse, spec: FileSpec, stats: FileStats) {
  stats.requests += 1;
  stats.headers.push(req.headers);
  if (spec.delayMs) await new Promise((resolve) => setTimeout(resolve, spec.delayMs));
  const early = spec.firstStatuses?.shift();
  if (early) {
    res.writeHead(early, { "content-type": "application/json" });
    return res.end("{}");
  }
  if (spec.status && spec.status !== 200) {
    res.writeHead(spec.status, { "content-type": "application/json" });
    return res.end(JSON.stringify({ message: `status ${spec.status}` }));
  }
  const type = spec.contentType ?? "application/octet-stream";
  if (spec.hang) {
    res.writeHead(200, { "content-type": type, "content-length": String(spec.bytes?.byteLength ?? 1_000) });
    res.write(Buffer.alloc(10));
    stats.bytesSent += 10;
    return; // never ends: the client's timeout must
  }
  if (spec.streamBytes) {
    res.writeHead(200, { "content-type": type }); // chunked, no length: the client learns the size by reading
    const chunk = Buffer.alloc(64 * 1024, 0x41);
    let left = spec.streamBytes;
    let closed = false;
    let wake = () => {};
    res.on("close", () => {
      closed = true;
      wake();
    });
    res.on("drain", () => wake());
    while (left > 0 && !closed) {
      const part = left >= chunk.byteLength ? chunk : chunk.subarray(0, left);
      left -= part.byteLength;
      stats.bytesSent += part.byteLength;
      if (!res.write(part))
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
    }
    if (!closed) res.end();
    return;
  }
  const bytes = spec.bytes ?? Buffer.alloc(0);
  res.writeHead(200, { "content-type": type, "content-length": String(bytes.byteLength) });
  stats.bytesSent += bytes.byteLength;
  res.end(bytes);
}

/**
 * A file host on loopback: LINE's content endpoint (`/v2/bot/message/{id}/content`,
 * with the access token checked) and external providers' URLs. `serve(path, spec)`
 * registers a file; `stats(path)` says how often it was asked for and how much went out.
 */
export async function startFakeFiles(options: { lineToken?: string } = {}) {
  const files = new Map<string, FileSpec>();
  const stats = new Map<string, FileStats>();
  const statsOf = (path: string) => {
    let s = stats.get(path);
    if (!s) {
      s = { requests: 0, bytesSent: 0, headers: [] };
      stats.set(path, s);
    }
    return s;
  };
  const server = createServer(async (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const spec = files.get(path);
    if (path.startsWith("/v2/bot/message/") && options.lineToken && req.headers.authorization !== `Bearer ${options.lineToken}`) {
      res.writeHead(401, { "content-type": "application/json" });
      return res.end(JSON.stringify({ message: "Authentication failed" }));
    }
    if (!spec) {
      statsOf(path).requests += 1;
      res.writeHead(404, { "content-type": "application/json" });
      return res.end(JSON.stringify({ message: "Not found" }));
    }
    await serveFile(req, res, spec, statsOf(path));
  });
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    serve: (path: string, spec: FileSpec) => {
      files.set(path, spec);
      return `${url}${path}`;
    },
    /** LINE's content path for a message id. */
    lineContent: (messageId: string, spec: FileSpec) => files.set(`/v2/bot/message/${messageId}/content`, spec),
    stats: (path: string) => statsOf(path),
    lineStats: (messageId: string) => statsOf(`/v2/bot/message/${messageId}/content`),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type FakeFiles = Awaited<ReturnType<typeof startFakeFiles>>;

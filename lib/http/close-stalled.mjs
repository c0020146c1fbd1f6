// Connections closed after a 408 for a request body that stopped arriving. Plain
// JavaScript so scripts/start.mjs, the HTTP server in front of Next, can import it
// without a TypeScript loader.

/**
 * Marks `res` to close its connection when it is a 408 (lib/http/respond.ts: no
 * bytes of the body for 30 s) sent before the body arrived in full. Kept alive,
 * Node would go on reading and discarding that body before the socket could take
 * another request: a client that then sends a byte every few seconds holds the
 * socket until the server's request timeout (300 s), one that stays silent until
 * the keep-alive timeout (about 6 s). "Connection: close" ends it once the 408 is
 * sent. Other early answers (a 413 for a body declared too large, a 401 that never
 * read it) keep Node's behaviour: closing while a client is still uploading
 * resets the connection, and the client may never read the answer.
 *
 * @param {import("node:http").IncomingMessage} req
 * @param {import("node:http").ServerResponse} res
 */
export function closeIfBodyStalled(req, res) {
  const writeHead = res.writeHead;
  // Every response passes here: Node's implicit headers (res.end, res.write, flushHeaders) call writeHead too.
  res.writeHead = function (...args) {
    const status = typeof args[0] === "number" ? args[0] : this.statusCode;
    if (status === 408 && !req.complete && !this.headersSent) this.setHeader("connection", "close");
    return writeHead.apply(this, args);
  };
}

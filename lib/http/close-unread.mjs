// Connections whose request body was not read to its end, closed after their
// response. Plain JavaScript so scripts/start.mjs, the HTTP server in front of Next,
// can import it without a TypeScript loader.

/**
 * Marks `res` to close its connection when it answers before the request's body
 * has arrived in full: a 408 for a body that stopped arriving (lib/http/respond.ts),
 * a 413 for one declared too large, a refusal that never read it. Kept alive, Node
 * would go on reading (and discarding) that body before the next request could use
 * the socket, so a client that stopped sending held the socket until the server's
 * request timeout (300 s): a stranger's stalled requests would each hold one that
 * long. "Connection: close" ends it once the response is sent (a FIN, so the client
 * still reads the response).
 *
 * @param {import("node:http").IncomingMessage} req
 * @param {import("node:http").ServerResponse} res
 */
export function closeIfBodyUnread(req, res) {
  const writeHead = res.writeHead;
  // Every response passes here: Node's implicit headers (res.end without writeHead) call writeHead too.
  res.writeHead = function (...args) {
    if (!req.complete && !this.headersSent) this.setHeader("connection", "close");
    return writeHead.apply(this, args);
  };
}

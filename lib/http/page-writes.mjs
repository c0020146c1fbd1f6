// Writes to the console's pages, refused by the HTTP server in front of Next
// (scripts/start.mjs). Plain JavaScript so that script can import it without a
// TypeScript loader.

const READS = new Set(["GET", "HEAD"]);

/**
 * Whether a request outside the API is anything but a read (GET, HEAD). The
 * console's pages only read: every change goes through /api/ (and the webhooks
 * under it). Next reads the body of a POST to a page looking for a Server Action
 * (this app has none), with no limit on how long the body may take, so a
 * stranger's page POSTs that stopped sending each held a socket until Node's
 * 300 s request timeout. Refused at once instead, before any of the body is read.
 *
 * @param {string | undefined} method
 * @param {string | undefined} url the request target, e.g. "/login?next=%2F"
 */
export function isPageWrite(method, url = "/") {
  // As Next will route it: dot segments ("/api/../login", "%2e%2e", backslashes) resolved,
  // the absolute form ("http://host/api/x") reduced to its path.
  let path;
  try {
    path = new URL(url, "http://localhost").pathname;
  } catch {
    return true;
  }
  // "/api" itself is no route: Next serves its not-found page there, and reads the body too.
  if (path.startsWith("/api/")) return false;
  // OPTIONS too: pages need no preflight, and Next read an OPTIONS body to a page as well.
  return !READS.has((method ?? "GET").toUpperCase());
}

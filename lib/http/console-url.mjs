// What `npm start` tells the operator once it listens: where the console is and, on a
// fresh install, where to set it up with which code. Plain functions (no I/O), so
// scripts/start.mjs prints them and the tests read them.

/**
 * The address to open in a browser for a server listening on `hostname` and `port`:
 * every interface (unset, 0.0.0.0, ::) is reached as localhost on this machine.
 *
 * @example consoleUrl(undefined, "3000") // "http://localhost:3000"
 * @example consoleUrl("::1", "8080") // "http://[::1]:8080"
 */
export function consoleUrl(hostname, port) {
  const host = !hostname || hostname === "0.0.0.0" || hostname === "::" ? "localhost" : hostname;
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/**
 * The lines printed when the server is ready: the console's URL, or, while no operator
 * exists, the setup page's URL with the code it asks for.
 */
export function readyLines(url, setupCode) {
  if (setupCode) return [`[start] ready: open ${url}/setup and enter the setup code ${setupCode}`];
  return [`[start] ready: open ${url}/`];
}

/**
 * Said before a build starts: the first start builds the app before it serves, which takes
 * minutes (measured: about 4 on 2 cores), and later starts skip it while the sources are unchanged.
 */
export function buildNotice(firstBuild) {
  return firstBuild
    ? "[start] first start: building the app before it serves (about 4 minutes on 2 cores; later starts skip this)…"
    : "[start] the sources changed: building the app again (a few minutes)…";
}

/** A line every so often while the build runs, so minutes of a quiet build never look like a hang. */
export function buildProgress(elapsedMs) {
  const seconds = Math.round(elapsedMs / 1000);
  return `[start] still building… ${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, "0")} s`;
}

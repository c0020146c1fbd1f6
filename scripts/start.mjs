// `npm start`: apply pending migrations (creating the SQLite file on first run),
// build the app if the build is missing or older than the sources, then serve it
// on PORT (default 3000) and HOSTNAME (default: every interface). No keys or accounts needed: without TELEGRAM_BOT_TOKEN
// the sandbox channel is used, without LLM_* no model is called.
import { spawnSync } from "node:child_process";
import { createServer } from "node:http";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { migrate, projectRoot } from "../lib/db/migrations.mjs";
import { PEER_HEADER_PREFIX, peerHeaderName, resolveClientAddress } from "../lib/http/client-address.mjs";

process.env.NEXT_TELEMETRY_DISABLED = "1";
process.env.DATABASE_URL ||= "file:./data/switchboard.db";
const port = process.env.PORT || "3000";
const nextBin = join(projectRoot, "node_modules/next/dist/bin/next");

function newestSourceMtime() {
  let newest = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === "generated" || entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of ["app", "lib", "public", "prisma"]) if (existsSync(join(projectRoot, dir))) walk(join(projectRoot, dir));
  for (const file of ["package.json", "next.config.mjs", "instrumentation.ts", "tsconfig.json"]) {
    const path = join(projectRoot, file);
    if (existsSync(path)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function buildIsCurrent() {
  const buildId = join(projectRoot, ".next/BUILD_ID");
  return existsSync(buildId) && statSync(buildId).mtimeMs >= newestSourceMtime();
}

const applied = await migrate(process.env.DATABASE_URL, { log: (line) => console.log(`[migrate] ${line}`) });
if (applied.length === 0) console.log("[migrate] database is up to date");

if (process.env.SKIP_BUILD !== "1" && !buildIsCurrent()) {
  console.log("[start] building the app (first start or sources changed)…");
  const build = spawnSync(process.execPath, [nextBin, "build"], { cwd: projectRoot, stdio: "inherit", env: process.env });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// One process serves: Next's request handler behind our own HTTP server, which alone
// sees the socket. It records the client's address for sign-in throttling in a
// header only it can set (lib/http/client-address.mjs), honours HOSTNAME, and on
// SIGTERM/SIGINT stops gracefully (docs/DEPLOYMENT.md).
process.env.NODE_ENV = "production";
const hostname = process.env.HOSTNAME || undefined; // unset: every interface
const trustedHops = Number(process.env.TRUST_PROXY || 0);
const peerHeader = peerHeaderName();
const { default: next } = await import("next");
const app = next({ dev: false, dir: projectRoot, hostname: hostname ?? "localhost", port: Number(port) });
const handle = app.getRequestHandler();
await app.prepare();

const server = createServer((req, res) => {
  for (const name of Object.keys(req.headers)) if (name.startsWith(PEER_HEADER_PREFIX)) delete req.headers[name];
  const forwarded = req.headers["x-forwarded-for"];
  req.headers[peerHeader] = resolveClientAddress(
    req.socket.remoteAddress,
    Array.isArray(forwarded) ? forwarded.join(",") : forwarded,
    trustedHops,
  );
  handle(req, res);
});
server.on("upgrade", app.getUpgradeHandler());
server.listen(Number(port), hostname, () => {
  const where = hostname ?? "every interface";
  console.log(`[start] listening on ${where}, port ${port}`);
});

const SHUTDOWN_DEADLINE_MS = Number(process.env.SHUTDOWN_TIMEOUT_SECONDS || 20) * 1000;
let stopping = false;
async function stop(signal) {
  if (stopping) return;
  stopping = true;
  console.log(`[start] ${signal}: finishing in-flight requests and turns (at most ${SHUTDOWN_DEADLINE_MS / 1000} s)…`);
  // A second bound around everything: whatever hangs, the process ends.
  setTimeout(() => {
    console.error("[start] shutdown took too long; exiting");
    process.exit(1);
  }, SHUTDOWN_DEADLINE_MS + 5_000).unref();
  const closed = new Promise((resolve) => server.close(resolve));
  server.closeIdleConnections();
  await globalThis.__switchboardShutdown?.(SHUTDOWN_DEADLINE_MS);
  server.closeAllConnections();
  await closed;
  await app.close?.().catch(() => {});
  process.exit(0);
}
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => void stop(signal));
// A wrapper that dies without passing the signal on (a shell between npm and this
// process) leaves us reparented: stop then too, never serve as an orphan.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void stop("parent exited");
}, 1_000).unref();

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate } from "../lib/db/migrations.mjs";

/**
 * A production server (`npm start`'s path) for HTTP benchmarks: on a fresh SQLite
 * file, or on `env.DATABASE_URL` when given (a PostgreSQL schema).
 */
export async function startServer(port: number, env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "bench-server-"));
  const databaseUrl = env.DATABASE_URL ?? `file:${join(dir, "bench.db")}`;
  // BENCH_CPU_PROF=<dir>: profile the server itself (next start under --cpu-prof, on
  // the existing build); the profile is written when the server stops.
  const profileDir = process.env.BENCH_CPU_PROF;
  if (profileDir) await migrate(databaseUrl);
  const args = profileDir
    ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, "node_modules/next/dist/bin/next", "start", "-p", String(port)]
    : ["scripts/start.mjs"];
  // BENCH_SERVER_NODE=<path to node>: the server on another Node.js than the bench's own
  // (its native modules, better-sqlite3, built for that version); BENCH_SERVER_NODE_OPTIONS
  // is the server's NODE_OPTIONS alone (a flag the bench's Node may not know).
  const serverNode = process.env.BENCH_SERVER_NODE || process.execPath;
  const nodeOptions = process.env.BENCH_SERVER_NODE_OPTIONS;
  const child: ChildProcess = spawn(serverNode, args, {
    env: {
      ...process.env,
      PORT: String(port),
      LOG_LEVEL: "error",
      NODE_ENV: "production",
      ADMIN_PASSWORD: "bench-password-1",
      ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
      ...env,
      DATABASE_URL: databaseUrl,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const ok = await fetch(`${base}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error("server did not start in time");
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    base,
    /** The spawned process (the start script; the server is its child). */
    pid: child.pid!,
    databaseUrl,
    dir,
    stop: async () => {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

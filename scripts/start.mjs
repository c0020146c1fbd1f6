// `npm start`: apply pending migrations (creating the SQLite file on first run),
// build the app if the build is missing or older than the sources, then serve it
// on PORT (default 3000). No keys or accounts needed: without TELEGRAM_BOT_TOKEN
// the sandbox channel is used, without LLM_* no model is called.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { migrate, projectRoot } from "../lib/db/migrations.mjs";

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

const server = spawn(process.execPath, [nextBin, "start", "-p", port], { cwd: projectRoot, stdio: "inherit", env: process.env });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

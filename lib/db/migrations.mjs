// Applies the SQL migrations under prisma/migrations/<provider>/ and records
// them in `_prisma_migrations` the way Prisma's own engine does (same table,
// same checksum), so `prisma migrate deploy` on a connected machine accepts the
// history. Plain JavaScript because `npm start` runs it before anything is built.
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Postgres advisory lock key used by Prisma Migrate; one migrator at a time. */
const ADVISORY_LOCK_KEY = 72707369;

/** @typedef {"sqlite" | "postgresql"} Provider */
/** @typedef {{ name: string, sql: string, checksum: string }} Migration */

/** @param {string} url @returns {Provider} */
export function providerOf(url) {
  if (/^postgres(ql)?:\/\//.test(url)) return "postgresql";
  if (url.startsWith("file:")) return "sqlite";
  throw new Error(`DATABASE_URL must start with file: (SQLite) or postgres:// (PostgreSQL), got "${url.split(":")[0]}:…"`);
}

/**
 * Resolves `file:./data/x.db` against the project root (not the process cwd, so
 * scripts, tests and the server agree on one file). `file::memory:` stays in memory.
 * @param {string} url
 */
export function sqlitePath(url) {
  const path = url.replace(/^file:/, "").split("?")[0];
  if (path === ":memory:") return path;
  return resolve(projectRoot, path);
}

/**
 * Splits a PostgreSQL URL's `schema` parameter (Prisma's convention) off: node-postgres
 * would send it to the server as a setting, which PostgreSQL rejects.
 * @param {string} url
 */
export function postgresTarget(url) {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get("schema") ?? "public";
  parsed.searchParams.delete("schema");
  return { connectionString: parsed.toString(), schema };
}

/** @param {Provider} provider */
export function migrationsDir(provider) {
  return join(projectRoot, "prisma/migrations", provider);
}

/** @param {Provider} provider @returns {Migration[]} */
export function readMigrations(provider) {
  const dir = migrationsDir(provider);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

/**
 * Applies every pending migration to the database at `url`.
 * @param {string} url
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {Promise<string[]>} names of the migrations applied now
 */
export async function migrate(url, { log = () => {} } = {}) {
  const provider = providerOf(url);
  const migrations = readMigrations(provider);
  return provider === "sqlite" ? migrateSqlite(url, migrations, log) : migratePostgres(url, migrations, log);
}

/** @param {{ migration_name: string, checksum: string, finished_at: unknown, rolled_back_at: unknown }[]} rows @param {Migration[]} migrations */
function pendingOf(rows, migrations, log) {
  const byName = new Map(rows.filter((r) => r.rolled_back_at == null).map((r) => [r.migration_name, r]));
  const pending = [];
  for (const m of migrations) {
    const row = byName.get(m.name);
    if (!row) pending.push(m);
    else if (row.finished_at == null)
      throw new Error(`migration ${m.name} started but did not finish; fix the database, then mark it rolled back (see docs/DATABASE.md)`);
    else if (row.checksum !== m.checksum) log(`warning: migration ${m.name} was modified after it was applied`);
  }
  return pending;
}

async function migrateSqlite(url, migrations, log) {
  const { default: Database } = await import("better-sqlite3");
  const file = sqlitePath(url);
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("busy_timeout = 5000");
    db.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`);
    const applied = [];
    // IMMEDIATE takes the write lock first, so two starting processes serialize here.
    db.exec("BEGIN IMMEDIATE");
    try {
      const rows = db.prepare(`SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"`).all();
      for (const m of pendingOf(rows, migrations, log)) {
        const id = randomUUID();
        db.prepare(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ?, 0)`,
        ).run(id, m.checksum, m.name, Date.now());
        db.exec(m.sql);
        db.prepare(`UPDATE "_prisma_migrations" SET finished_at = ?, applied_steps_count = 1 WHERE id = ?`).run(Date.now(), id);
        applied.push(m.name);
        log(`applied ${m.name}`);
      }
      db.exec("COMMIT");
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
    return applied;
  } finally {
    db.close();
  }
}

async function migratePostgres(url, migrations, log) {
  const { default: pg } = await import("pg");
  const { connectionString, schema } = postgresTarget(url);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema.replaceAll('"', '""')}"`);
    await client.query(`SET search_path TO "${schema.replaceAll('"', '""')}"`);
    // Several app instances may start at once; Prisma Migrate uses the same lock.
    await client.query("SELECT pg_advisory_lock($1)", [ADVISORY_LOCK_KEY]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`);
      const { rows } = await client.query(`SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"`);
      const applied = [];
      for (const m of pendingOf(rows, migrations, log)) {
        const id = randomUUID();
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)`,
          [id, m.checksum, m.name],
        );
        await client.query("BEGIN");
        try {
          await client.query(m.sql);
          await client.query("COMMIT");
        } catch (error) {
          await client.query("ROLLBACK");
          await client.query(`UPDATE "_prisma_migrations" SET logs = $2 WHERE id = $1`, [id, String(error)]);
          throw new Error(`migration ${m.name} failed: ${error.message}`);
        }
        await client.query(`UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`, [id]);
        applied.push(m.name);
        log(`applied ${m.name}`);
      }
      return applied;
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [ADVISORY_LOCK_KEY]);
    }
  } finally {
    await client.end();
  }
}

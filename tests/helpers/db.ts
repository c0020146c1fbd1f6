import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { openDb, type Database } from "@/lib/db/database";
import { migrate, postgresTarget } from "@/lib/db/migrations.mjs";
import { dbMetrics } from "@/lib/metrics/db";

export type TestDb = { db: Database; url: string; provider: "sqlite" | "postgresql"; close: () => Promise<void> };

/** A fresh, migrated SQLite file in a temporary folder; removed on close. */
export async function sqliteTestDb(): Promise<TestDb> {
  const dir = mkdtempSync(join(tmpdir(), "switchboard-test-"));
  const url = `file:${join(dir, "test.db")}`;
  await migrate(url);
  const db = await openDb(url, { observer: dbMetrics });
  return {
    db,
    url,
    provider: "sqlite",
    close: async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh, migrated schema on TEST_DATABASE_URL's server; dropped on close. */
export async function postgresTestDb(): Promise<TestDb> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error("TEST_DATABASE_URL is not set");
  const schema = `test_${randomBytes(6).toString("hex")}`;
  const url = new URL(base);
  url.searchParams.set("schema", schema);
  await migrate(url.toString());
  const db = await openDb(url.toString(), { observer: dbMetrics });
  return {
    db,
    url: url.toString(),
    provider: "postgresql",
    close: async () => {
      await db.close();
      const client = new pg.Client({ connectionString: postgresTarget(base).connectionString });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

export const POSTGRES_SKIP_REASON =
  "TEST_DATABASE_URL is not set: PostgreSQL tests skipped (set it to e.g. postgres://postgres@127.0.0.1:5432/test)";
export const hasPostgres = Boolean(process.env.TEST_DATABASE_URL);

/** Each database the suite runs against here: SQLite always, PostgreSQL when configured. */
export const databases: { name: "sqlite" | "postgresql"; open: () => Promise<TestDb> }[] = [
  { name: "sqlite", open: sqliteTestDb },
  ...(hasPostgres ? [{ name: "postgresql" as const, open: postgresTestDb }] : []),
];

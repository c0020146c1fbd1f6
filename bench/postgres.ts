import { randomBytes } from "node:crypto";
import pg from "pg";
import { migrate, postgresTarget } from "../lib/db/migrations.mjs";

/**
 * PostgreSQL for the benchmarks that also run there: BENCH_DATABASE_URL, else
 * TEST_DATABASE_URL (as .ci/run sets it). Each run gets a fresh, migrated schema
 * that is dropped afterwards. Null when neither is set: those cases are skipped.
 */
export async function benchPostgres(): Promise<{
  url: string;
  query: (sql: string) => Promise<unknown[]>;
  drop: () => Promise<void>;
} | null> {
  const base = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (!base) return null;
  const schema = `bench_${randomBytes(5).toString("hex")}`;
  const url = new URL(base);
  url.searchParams.set("schema", schema);
  await migrate(url.toString());
  const client = new pg.Client({ connectionString: postgresTarget(base).connectionString });
  await client.connect();
  return {
    url: url.toString(),
    query: async (sql) => (await client.query(sql.replaceAll("$schema", `"${schema}"`))).rows,
    drop: async () => {
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

export const POSTGRES_SKIPPED = "PostgreSQL cases skipped: set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to run them";

import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient as PostgresClient } from "./generated/postgres/client";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client";
import { postgresTarget, providerOf, sqlitePath } from "./migrations.mjs";
import { registerPostgresPool, registerSqliteConnection } from "./sql";
import { SqliteConnection } from "./sqlite-connection";

/**
 * The Prisma client type the code is written against. Both generated clients
 * come from one datamodel, so the PostgreSQL client has the same shape.
 */
export type Db = SqliteClient;
export type Provider = "sqlite" | "postgresql";

/** Opens a Prisma client for `url`: `file:` is SQLite, `postgres://` PostgreSQL. */
export async function openDb(url: string, options: { backgroundCheckpoints?: boolean } = {}): Promise<Db> {
  if (providerOf(url) === "postgresql") {
    const { connectionString, schema } = postgresTarget(url);
    // search_path too, so raw SQL (recursive CTEs) sees the same schema as the client.
    const searchPath = `-c search_path="${schema.replaceAll('"', '""')}"`;
    const adapter = new PrismaPg({ connectionString, max: 10, options: searchPath }, { schema });
    const db = new PostgresClient({ adapter }) as unknown as Db;
    // The hand-written hot-path SQL (lib/db/sql.ts) runs on a small pool of its own.
    registerPostgresPool(db, new pg.Pool({ connectionString, max: 5, options: searchPath, idleTimeoutMillis: 5_000, allowExitOnIdle: true, types: { getTypeParser: utcTimestamps } }));
    return db;
  }
  // The server checkpoints the WAL on a worker thread (see sqlite-checkpointer.ts).
  const connection = new SqliteConnection({ url: sqlitePath(url), timeout: 5000 }, { backgroundCheckpointMs: options.backgroundCheckpoints ? 250 : undefined });
  const db = new SqliteClient({ adapter: connection });
  registerSqliteConnection(db, connection);
  // WAL is set once by the migrator and persists in the file. NORMAL under WAL is
  // durable across process crashes (a committed transaction survives SIGKILL);
  // only an OS crash or power loss can drop the last commits.
  await db.$queryRawUnsafe("PRAGMA synchronous = NORMAL");
  await db.$queryRawUnsafe("PRAGMA foreign_keys = ON");
  return db;
}

/** `timestamp(3)` columns hold UTC (as Prisma writes them); node-postgres would read local time. */
function utcTimestamps(oid: number, format?: "text" | "binary") {
  if (oid === pg.types.builtins.TIMESTAMP) return (value: string) => new Date(`${value.replace(" ", "T")}Z`);
  return pg.types.getTypeParser(oid, format as "text");
}

export function providerOfDb(url: string): Provider {
  return providerOf(url);
}

type Holder = { db?: Promise<Db>; url?: string };
const holder = globalThis as unknown as { __switchboardDb?: Holder };

/**
 * The process's one client (kept on globalThis so Next's dev reloads and the
 * route bundles share it rather than opening a pool each).
 */
export function getDb(url: string): Promise<Db> {
  const h = (holder.__switchboardDb ??= {});
  if (!h.db || h.url !== url) {
    h.url = url;
    h.db = openDb(url, { backgroundCheckpoints: true });
  }
  return h.db;
}

import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient as PostgresClient } from "./generated/postgres/client";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client";
import { postgresTarget, providerOf, sqlitePath } from "./migrations.mjs";
import { SettingsCache } from "./settings-cache";
import { postgresSql, sqliteSql, sqliteValue, type SqlRunner, type SqlValue, type WriteStatement } from "./sql";
import { SqliteConnection } from "./sqlite-connection";
import { countedAdapter, type DbObserver, timedSql } from "./observed";
import { type BoundedRows, SqliteReadThread } from "./sqlite-read-thread";

/**
 * The Prisma client type the code is written against. Both generated clients
 * come from one datamodel, so the PostgreSQL client has the same shape.
 */
export type PrismaDb = SqliteClient;
export type Dialect = "sqlite" | "postgresql";

/**
 * One open database: the Prisma client for everything that is not hot, and the
 * hand-written SQL path for what runs on every message. Passed explicitly to
 * every module that reads or writes; nothing finds it through a global.
 */
export interface Database {
  readonly prisma: PrismaDb;
  readonly dialect: Dialect;
  /**
   * Runs `fn` in a transaction of its own: its writes commit together or not at
   * all, and the promise resolves only after they are durable.
   * - SQLite: on the raw connection with cached prepared statements, and calls that
   *   arrive together share one commit (group commit): a commit (the WAL append of
   *   every touched index page) costs more than all of a message's statements, so
   *   under load it is paid once per batch, not once per message.
   * - PostgreSQL: on a pg pool of its own beside Prisma's; through Prisma's raw
   *   query API each statement cost several times its round trip in client CPU.
   * Never call it from inside a Prisma transaction (on SQLite it would wait forever).
   */
  transaction<T>(fn: (sql: SqlRunner) => Promise<T>): Promise<T>;
  /**
   * One read on the hand-written path, outside any transaction. For the reads of
   * every agent turn, where Prisma's raw query API costs about 0.1 ms per row returned.
   */
  read<T>(sql: string, ...params: SqlValue[]): Promise<T[]>;
  /**
   * One write statement committed on its own, with what it returns (RETURNING).
   * Durable like `transaction` when it resolves; on PostgreSQL it skips the BEGIN
   * and COMMIT round trips (a third of a turn's statements were those), on SQLite
   * it joins the group commit. A statement that records the time is given as a
   * function: it is built once the write runs, after any wait for the pool.
   */
  write<T>(statement: WriteStatement): Promise<T[]>;
  /**
   * A read that may be slow (message search over text anyone can send): it never
   * runs on the request thread nor holds more than two of the pool's connections,
   * and it stops at `deadline` (epoch ms), queue time included. `complete` is
   * false when it stopped: `rows` are then what was read by then (SQLite, whose
   * SQL calls within_deadline() per row to be stoppable mid-scan) or none
   * (PostgreSQL: statement_timeout).
   */
  readBounded<T>(sql: string, params: SqlValue[], deadline: number): Promise<BoundedRows<T>>;
  /** The stored settings and the bots' own, one cache for as long as this handle lives (lib/settings/reader.ts reads through it). */
  readonly settingsCache: SettingsCache;
  /** The SQLite connection behind the client (tests reach its lock); undefined on PostgreSQL. */
  readonly sqliteConnection?: SqliteConnection;
  /** The SQLite database's file (":memory:" for one in memory); undefined on PostgreSQL. Media lives beside it. */
  readonly sqliteFile?: string;
  close(): Promise<void>;
}

export type OpenOptions = {
  /** The server checkpoints the WAL on a worker thread (see sqlite-checkpointer.ts). */
  backgroundCheckpoints?: boolean;
  /** Connections of the hand-written PostgreSQL path (claims, ingest, turn reads); the server sizes it with postgresPoolSize. */
  poolSize?: number;
  /** Told of every statement and its time (the server's metrics: lib/metrics/db.ts `dbMetrics`); none: nothing is counted. */
  observer?: DbObserver;
};

/**
 * The hand-written PostgreSQL pool for a worker running `workerConcurrency` turns
 * at once. Claims, ingest and every turn's reads share it; each holds a
 * connection for one short statement or transaction (never across a model
 * call), so half a connection per concurrent turn keeps them from queueing,
 * while the bound leaves room under PostgreSQL's default max_connections (100)
 * for three instances, each with Prisma's own pool of 10 (3 × 30).
 */
export function postgresPoolSize(workerConcurrency: number): number {
  return Math.min(20, Math.max(5, Math.ceil(workerConcurrency / 2)));
}

/** Opens a database for `url`: `file:` is SQLite, `postgres://` PostgreSQL. */
export async function openDb(url: string, options: OpenOptions = {}): Promise<Database> {
  const observed = options.observer;
  if (providerOf(url) === "postgresql") {
    const { connectionString, schema } = postgresTarget(url);
    // search_path too, so raw SQL (recursive CTEs) sees the same schema as the client.
    const searchPath = `-c search_path="${schema.replaceAll('"', '""')}"`;
    const adapter = new PrismaPg({ connectionString, max: 10, options: searchPath }, { schema });
    const prisma = new PostgresClient({
      adapter: observed ? countedAdapter(adapter, "postgresql", observed) : adapter,
    }) as unknown as PrismaDb;
    const connections = options.poolSize ?? 5;
    const pool = new pg.Pool({
      connectionString,
      max: connections,
      options: searchPath,
      idleTimeoutMillis: 5_000,
      allowExitOnIdle: true,
      types: { getTypeParser: utcTimestamps },
    });
    const sql = observed ? timedSql(postgresSql(pool, connections), "postgresql", observed) : postgresSql(pool, connections);
    return {
      prisma,
      dialect: "postgresql",
      transaction: sql.transaction,
      read: sql.read,
      write: sql.write,
      readBounded: sql.readBounded,
      settingsCache: new SettingsCache(sql.read, false),
      close: async () => {
        await prisma.$disconnect();
        await pool.end();
      },
    };
  }
  const connection = new SqliteConnection(
    { url: sqlitePath(url), timeout: 5000 },
    { backgroundCheckpointMs: options.backgroundCheckpoints ? 250 : undefined },
  );
  const prisma = new SqliteClient({ adapter: observed ? countedAdapter(connection, "sqlite", observed) : connection });
  // WAL is set once by the migrator and persists in the file. NORMAL under WAL is
  // durable across process crashes (a committed transaction survives SIGKILL);
  // only an OS crash or power loss can drop the last commits.
  await prisma.$queryRawUnsafe("PRAGMA synchronous = NORMAL");
  await prisma.$queryRawUnsafe("PRAGMA foreign_keys = ON");
  const sql = observed ? timedSql(sqliteSql(connection), "sqlite", observed) : sqliteSql(connection);
  const path = sqlitePath(url);
  // A database in memory is this connection's alone: no thread can open it.
  const readThread = path === ":memory:" ? undefined : new SqliteReadThread(path);
  return {
    prisma,
    dialect: "sqlite",
    transaction: sql.transaction,
    read: sql.read,
    write: sql.write,
    readBounded: async <T>(text: string, params: SqlValue[], deadline: number) =>
      readThread
        ? readThread.read<T>(text, params.map(sqliteValue), deadline)
        : { rows: await sql.read<T>(text.replaceAll("within_deadline()", "1"), ...params), complete: true },
    settingsCache: new SettingsCache(sql.read, true),
    sqliteConnection: connection,
    sqliteFile: path,
    close: async () => {
      await readThread?.close();
      await prisma.$disconnect();
    },
  };
}

/** `timestamp(3)` columns hold UTC (as Prisma writes them); node-postgres would read local time. */
function utcTimestamps(oid: number, format?: "text" | "binary") {
  if (oid === pg.types.builtins.TIMESTAMP) return (value: string) => new Date(`${value.replace(" ", "T")}Z`);
  return pg.types.getTypeParser(oid, format as "text");
}

import { createHash } from "node:crypto";
import type Database from "better-sqlite3";
import PQueue from "p-queue";
import type pg from "pg";
import { currentArrival } from "./arrival";
import type { SqliteConnection } from "./sqlite-connection";

/** A bound parameter. Objects are JSON columns; dates and booleans are mapped per database as Prisma maps them. */
export type SqlValue = string | number | boolean | Date | null | undefined | Record<string, unknown>;

/** A statement and its parameters. */
export type Statement = readonly [string, ...SqlValue[]];

/**
 * A write as a statement, or as a function that builds it when the write runs:
 * a write whose parameters read the clock (createdAt, doneAt) is built when its
 * turn for a connection comes, so a wait in the queue before does not backdate it.
 */
export type WriteStatement = Statement | (() => Statement);

const built = (write: WriteStatement): Statement => (typeof write === "function" ? write() : write);

/**
 * Hand-written SQL for the write paths that run on every message (ingest,
 * outbound messages, claiming and ending envelopes). Statements use `?` placeholders and quoted column names,
 * which both SQLite and PostgreSQL accept; values are written exactly as Prisma
 * writes them, so Prisma reads these rows like its own.
 */
export interface SqlRunner {
  /** For the few statements that differ (JSON merge, advisory locks). */
  readonly dialect: "sqlite" | "postgresql";
  all<T>(sql: string, ...params: SqlValue[]): Promise<T[]>;
  one<T>(sql: string, ...params: SqlValue[]): Promise<T | undefined>;
  /** Number of rows changed. */
  run(sql: string, ...params: SqlValue[]): Promise<number>;
}

/** Prepared statements per raw SQLite connection (one connection per Database). */
const statements = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/** The hand-written path over one SQLite connection: group-committed transactions and cached reads. */
export function sqliteSql(connection: SqliteConnection) {
  const group = new GroupCommit(connection);
  return {
    transaction: <T>(fn: (sql: SqlRunner) => Promise<T>): Promise<T> => group.submit(fn),
    read: <T>(sql: string, ...params: SqlValue[]): Promise<T[]> => connection.exclusive((raw) => sqliteRunner(raw).all<T>(sql, ...params)),
    write: <T>(write: WriteStatement): Promise<T[]> =>
      group.submit((runner) => {
        const [sql, ...params] = built(write);
        return runner.all<T>(sql, ...params);
      }),
  };
}

/**
 * The hand-written path over a pg pool of its own beside Prisma's. Statements and
 * transactions take one of the pool's `connections` in order of their work's
 * arrival (lib/db/arrival.ts), oldest first, not first come first served.
 */
export function postgresSql(pool: pg.Pool, connections: number) {
  const slots = new PQueue({ concurrency: connections });
  const byArrival = <T>(fn: () => Promise<T>): Promise<T> => slots.add(fn, { priority: -currentArrival() }) as Promise<T>;
  // One statement outside a transaction commits on its own (autocommit): reads, and writes that need no other statement.
  const single = <T>(statement: WriteStatement): Promise<T[]> =>
    byArrival(async () => {
      // Built once its turn for a connection came (the pool has one per slot), and before
      // taking it: a builder's own error is not a failed connection.
      const [sql, ...params] = built(statement);
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        const query = postgresQuery(sql, params);
        try {
          return (await client.query(query)).rows as T[];
        } catch (error) {
          // The statements have new names now, so a retry plans afresh. (A refused plan is
          // refused before the statement runs, so a write is not applied twice.)
          if (!stalePlan(error, query)) throw error;
          return (await client.query(postgresQuery(sql, params))).rows as T[];
        }
      } catch (error) {
        // A statement's own error (a duplicate key the caller expects) leaves the connection
        // and its prepared statements good; only a failed connection is dropped.
        if (!isStatementError(error)) broken = error as Error;
        throw error;
      } finally {
        client.release(broken);
      }
    });
  // Slow reads (search) take at most two of the pool's connections, whatever comes at once.
  const slow = new PQueue({ concurrency: 2 });
  const readBounded = <T>(sql: string, params: SqlValue[], deadline: number): Promise<{ rows: T[]; complete: boolean }> =>
    slow.add(async () => {
      const left = Math.floor(deadline - Date.now());
      if (left <= 0) return { rows: [], complete: false };
      try {
        const rows = await byArrival(() =>
          postgresTransaction(pool, async (runner) => {
            await runner.all("SELECT set_config('statement_timeout', ?, true)", String(left));
            return runner.all<T>(sql, ...params);
          }),
        );
        return { rows, complete: true };
      } catch (error) {
        // 57014: canceled by statement_timeout.
        if ((error as { code?: string }).code === "57014") return { rows: [], complete: false };
        throw error;
      }
    }) as Promise<{ rows: T[]; complete: boolean }>;
  return {
    transaction: <T>(fn: (sql: SqlRunner) => Promise<T>): Promise<T> => byArrival(() => postgresTransaction(pool, fn)),
    read: <T>(sql: string, ...params: SqlValue[]): Promise<T[]> => single<T>([sql, ...params]),
    write: single,
    readBounded,
  };
}

/** Distinct statement texts given a name; the few built with a variable number of `?` past this run unnamed. */
const MAX_NAMED_STATEMENTS = 256;
const named = new Map<string, { name: string; text: string }>();
let statementEpoch = 0;

/**
 * A statement of the hand-written PostgreSQL path as a named (prepared) statement:
 * each connection parses and plans it once, not on every call. Under load every
 * turn and ingest runs the same twenty-odd statements, and parsing them again was
 * most of what PostgreSQL spent on the small ones.
 */
function postgresQuery(sql: string, params: SqlValue[]): pg.QueryConfig {
  const values = params.map(postgresValue);
  let statement = named.get(sql);
  if (!statement) {
    const text = numberedPlaceholders(sql);
    if (named.size >= MAX_NAMED_STATEMENTS) return { text, values };
    statement = { name: `sb${statementEpoch}_${createHash("sha256").update(text).digest("hex").slice(0, 20)}`, text };
    named.set(sql, statement);
  }
  return { name: statement.name, text: statement.text, values };
}

/**
 * A prepared `SELECT *` fails once its table gained or lost a column (a migration
 * applied while this instance runs): PostgreSQL refuses the cached plan. Every
 * statement then gets a new name, so each connection prepares it again; the
 * statements that fail together with it rename once, not once each.
 */
function stalePlan(error: unknown, failed: pg.QueryConfig | undefined): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  if (code !== "0A000" || !message?.includes("cached plan")) return false;
  if (!failed?.name || failed.name.startsWith(`sb${statementEpoch}_`)) {
    named.clear();
    statementEpoch += 1;
  }
  return true;
}

/** An error PostgreSQL answered for one statement (it has a severity), as opposed to a connection that failed. */
function isStatementError(error: unknown): boolean {
  return typeof (error as { severity?: unknown } | null)?.severity === "string";
}

type Job = { fn: (sql: SqlRunner) => Promise<unknown>; resolve: (value: unknown) => void; reject: (error: unknown) => void };

/** The most jobs one commit carries: bounds how long the connection is held. */
const MAX_BATCH = 256;

/**
 * Jobs submitted before the next turn of the event loop (every request that
 * arrived together) run in one SQLite transaction, each inside a savepoint: a
 * job that throws (a duplicate update, a generation conflict) is rolled back
 * alone and rejected; the others resolve once the shared COMMIT succeeds. If
 * the commit itself fails, every job of the batch is rejected, so no caller is
 * ever told "stored" about a write that is not.
 */
class GroupCommit {
  private queue: Job[] = [];
  private scheduled = false;

  constructor(private readonly connection: SqliteConnection) {}

  submit<T>(fn: (sql: SqlRunner) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.connection
        .exclusive((raw) => this.flush(raw))
        .finally(() => {
          this.scheduled = false;
          if (this.queue.length > 0) this.schedule();
        });
    });
  }

  private async flush(raw: Database.Database) {
    const batch = this.queue.splice(0, MAX_BATCH);
    const done: { job: Job; value: unknown }[] = [];
    const sql = sqliteRunner(raw);
    try {
      // IMMEDIATE takes the write lock up front: another process (the CLI)
      // cannot make the transaction fail half-way by writing first.
      statement(raw, "BEGIN IMMEDIATE").run();
      for (const job of batch) {
        statement(raw, "SAVEPOINT job").run();
        try {
          const value = await job.fn(sql);
          statement(raw, "RELEASE job").run();
          done.push({ job, value });
        } catch (error) {
          // SQLite may have rolled the whole transaction back (disk full, I/O error).
          if (!raw.inTransaction) throw error;
          statement(raw, "ROLLBACK TO job").run();
          statement(raw, "RELEASE job").run();
          job.reject(error);
        }
      }
      statement(raw, "COMMIT").run();
    } catch (error) {
      if (raw.inTransaction) statement(raw, "ROLLBACK").run();
      // Jobs already rejected on their own keep their error (a promise settles once).
      for (const job of batch) job.reject(error);
      return;
    }
    for (const { job, value } of done) job.resolve(value);
  }
}

function statement(raw: Database.Database, sql: string): Database.Statement {
  let cache = statements.get(raw);
  if (!cache) {
    cache = new Map();
    statements.set(raw, cache);
  }
  let prepared = cache.get(sql);
  if (!prepared) {
    prepared = raw.prepare(sql);
    // Prisma's connection returns every integer as a BigInt; ids here fit a double.
    if (prepared.reader) prepared.safeIntegers(false);
    cache.set(sql, prepared);
  }
  return prepared;
}

/** Prisma's SQLite encoding: ISO-8601 text with "+00:00", booleans as 0/1, JSON as text. */
export function sqliteValue(value: SqlValue): string | number | null {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString().replace("Z", "+00:00");
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "object") return JSON.stringify(value);
  return value;
}

function sqliteRunner(raw: Database.Database): SqlRunner {
  const all = <T>(sql: string, params: SqlValue[]): T[] => {
    const prepared = statement(raw, sql);
    const values = params.map(sqliteValue);
    if (prepared.reader) return prepared.all(values) as T[];
    prepared.run(values);
    return [];
  };
  return {
    dialect: "sqlite",
    all: async (sql, ...params) => all(sql, params),
    one: async (sql, ...params) => all<never>(sql, params)[0],
    run: async (sql, ...params) => statement(raw, sql).run(params.map(sqliteValue)).changes,
  };
}

/** `?` → `$1, $2, …` (our statements never contain a literal question mark). */
export function numberedPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/**
 * Prisma's PostgreSQL encoding: timestamps are `timestamp(3)` holding UTC, so a
 * date goes as its UTC ISO string (the column ignores the zone; node-postgres
 * would send local time). Objects are JSON.
 */
export function postgresValue(value: SqlValue): unknown {
  if (value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (value !== null && typeof value === "object") return JSON.stringify(value);
  return value;
}

async function postgresTransaction<T>(pool: pg.Pool, fn: (sql: SqlRunner) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const sent: { last?: pg.QueryConfig } = {};
  try {
    await client.query("BEGIN");
    const result = await fn(postgresRunner(client, sent));
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    // The caller retries (the worker, the platform's redelivery) on statements with new names.
    stalePlan(error, sent.last);
    throw error;
  } finally {
    client.release();
  }
}

/** `sent.last`: the statement sent most recently (its name tells a stale plan's epoch). */
function postgresRunner(client: pg.PoolClient, sent: { last?: pg.QueryConfig }): SqlRunner {
  const query = (sql: string, params: SqlValue[]) => {
    sent.last = postgresQuery(sql, params);
    return client.query(sent.last);
  };
  return {
    dialect: "postgresql",
    all: async (sql, ...params) => (await query(sql, params)).rows,
    one: async (sql, ...params) => (await query(sql, params)).rows[0],
    run: async (sql, ...params) => (await query(sql, params)).rowCount ?? 0,
  };
}

/** `column IN (…)` for a list bound as one JSON array parameter (`jsonList`): one statement whatever the length, on both databases. */
export function inJsonList(sql: Pick<SqlRunner, "dialect">, column: string) {
  return sql.dialect === "sqlite"
    ? `${column} IN (SELECT "value" FROM json_each(?))`
    : `${column} IN (SELECT CAST(jsonb_array_elements_text(CAST(? AS jsonb)) AS int))`;
}

/** A list of ids as the JSON parameter `inJsonList` expects. */
export const jsonList = (ids: number[]) => ids as unknown as Record<string, unknown>;

/** A timestamp read on the hand-written path as Prisma returns it: SQLite hands back Prisma's ISO text, PostgreSQL a Date (UTC). */
export function sqlDate(value: Date | string | null | undefined): Date | null {
  return value === null || value === undefined ? null : value instanceof Date ? value : new Date(value);
}

/**
 * A row PostgreSQL handed back as JSON (`to_jsonb(t)`, several tables' rows in one
 * statement), typed as Prisma returns it. Its JSON columns are already values, and
 * its timestamps come without a zone: they are UTC, as every stored time.
 */
export function prismaRowFromJson<T>(row: Record<string, unknown>, columns: { dates?: string[]; booleans?: string[] }): T {
  const out: Record<string, unknown> = { ...row };
  for (const c of columns.dates ?? []) {
    const value = out[c];
    if (typeof value === "string" && !/(Z|[+-]\d\d(:?\d\d)?)$/.test(value)) out[c] = `${value}Z`;
  }
  return prismaRow<T>(out, { dates: columns.dates, booleans: columns.booleans }, "postgresql");
}

/**
 * A row read with `SELECT *` on the hand-written path, typed as Prisma returns it:
 * timestamps as Dates, booleans (0/1 on SQLite) as booleans, JSON parsed.
 */
export function prismaRow<T>(
  row: Record<string, unknown>,
  columns: { dates?: string[]; booleans?: string[]; json?: string[] },
  dialect: SqlRunner["dialect"],
): T {
  const out: Record<string, unknown> = { ...row };
  for (const c of columns.dates ?? []) out[c] = sqlDate(row[c] as Date | string | null);
  for (const c of columns.booleans ?? []) out[c] = row[c] === null || row[c] === undefined ? null : Boolean(row[c]);
  // SQLite stores JSON as text; node-postgres has parsed jsonb already (a JSON string value stays a string).
  if (dialect === "sqlite") for (const c of columns.json ?? []) out[c] = typeof row[c] === "string" ? JSON.parse(row[c] as string) : row[c];
  return out as T;
}

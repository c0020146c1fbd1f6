import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, Transaction } from "@prisma/driver-adapter-utils";
import type { SqlRunner, SqlValue, WriteStatement } from "./sql";

/**
 * What the database reports about its statements, handed in by whoever opens it
 * (the server: lib/metrics/db.ts `dbMetrics`), so lib/db records nothing itself.
 */
export type DbObserver = {
  /** One statement ran on `path` (the hand-written SQL or Prisma's). */
  statement(dialect: string, path: "sql" | "prisma"): void;
  /** Where durations go, or null when nobody records them now (then nothing is timed). */
  timings(): DbTimings | null;
};

export type DbTimings = {
  /** A read's, a write's or a transaction's work, in seconds. */
  statement(dialect: string, kind: "read" | "write" | "transaction", seconds: number): void;
  /** How long a transaction waited before its work began, in seconds. */
  poolWait(dialect: string, seconds: number): void;
};

type SqlPath = {
  transaction: <T>(fn: (sql: SqlRunner) => Promise<T>) => Promise<T>;
  read: <T>(sql: string, ...params: SqlValue[]) => Promise<T[]>;
  write: <T>(statement: WriteStatement) => Promise<T[]>;
};

/**
 * Counts one statement of `path` (not its time: a call's time here includes the wait for
 * SQLite's group commit or the pool, so it would not say what the database spent).
 */
async function counted<T>(observer: DbObserver, dialect: string, path: "sql" | "prisma", run: () => Promise<T>): Promise<T> {
  observer.statement(dialect, path);
  return run();
}

/** A transaction's runner whose statements are counted (statements per answered turn, docs/BENCHMARKS.md). */
function countedRunner(observer: DbObserver, runner: SqlRunner, dialect: string): SqlRunner {
  return {
    dialect: runner.dialect,
    all: (text, ...params) => counted(observer, dialect, "sql", () => runner.all(text, ...params)),
    one: (text, ...params) => counted(observer, dialect, "sql", () => runner.one(text, ...params)),
    run: (text, ...params) => counted(observer, dialect, "sql", () => runner.run(text, ...params)),
  };
}

/**
 * The hand-written SQL path with its timings recorded: each read and write, each
 * transaction's work, and how long a transaction waited before its work began
 * (the PostgreSQL pool; on SQLite the group commit and the connection's lock).
 * Every statement is counted too.
 */
export function timedSql<S extends SqlPath>(sql: S, dialect: string, observer: DbObserver): S {
  const timed = async <T>(kind: "read" | "write", run: () => Promise<T[]>): Promise<T[]> => {
    const m = observer.timings();
    if (!m) return run();
    const started = performance.now();
    try {
      return await counted(observer, dialect, "sql", run);
    } finally {
      m.statement(dialect, kind, (performance.now() - started) / 1000);
    }
  };
  return {
    ...sql,
    read: <T>(text: string, ...params: SqlValue[]) => timed("read", () => sql.read<T>(text, ...params)),
    write: <T>(statement: WriteStatement) => timed("write", () => sql.write<T>(statement)),
    transaction: async <T>(fn: (runner: SqlRunner) => Promise<T>): Promise<T> => {
      const m = observer.timings();
      if (!m) return sql.transaction(fn);
      const called = performance.now();
      return sql.transaction(async (runner) => {
        const started = performance.now();
        m.poolWait(dialect, (started - called) / 1000);
        try {
          return await fn(countedRunner(observer, runner, dialect));
        } finally {
          m.statement(dialect, "transaction", (performance.now() - started) / 1000);
        }
      });
    },
  };
}

/** Prisma's driver adapter with each query counted (its BEGIN and COMMIT are not, as on the hand-written path). */
export function countedAdapter<F extends SqlDriverAdapterFactory>(
  factory: F,
  dialect: string,
  observer: DbObserver,
): SqlDriverAdapterFactory {
  const query = (target: Pick<SqlDriverAdapter, "queryRaw" | "executeRaw">) => ({
    queryRaw: (q: SqlQuery) => counted(observer, dialect, "prisma", () => target.queryRaw(q)),
    executeRaw: (q: SqlQuery) => counted(observer, dialect, "prisma", () => target.executeRaw(q)),
  });
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => {
      const adapter = await factory.connect();
      return {
        ...bound(adapter),
        ...query(adapter),
        startTransaction: async (isolationLevel) => {
          const tx = await adapter.startTransaction(isolationLevel);
          return { ...bound(tx), ...query(tx) } as Transaction;
        },
      } as SqlDriverAdapter;
    },
  };
}

/** An adapter object's methods bound to it, as a plain object (its methods may live on its prototype). */
function bound<T extends object>(target: T): T {
  const out: Record<string, unknown> = {};
  for (let o: object | null = target; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const key of Object.getOwnPropertyNames(o)) {
      if (key === "constructor" || key in out) continue;
      const value = (target as Record<string, unknown>)[key];
      out[key] = typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    }
  }
  return out as T;
}

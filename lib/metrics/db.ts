import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, Transaction } from "@prisma/driver-adapter-utils";
import type { SqlRunner, SqlValue, WriteStatement } from "../db/sql";
import { metrics } from "./registry";

type SqlPath = {
  transaction: <T>(fn: (sql: SqlRunner) => Promise<T>) => Promise<T>;
  read: <T>(sql: string, ...params: SqlValue[]) => Promise<T[]>;
  write: <T>(statement: WriteStatement) => Promise<T[]>;
};

/**
 * Counts one statement of `path` (not its time: a call's time here includes the wait for
 * SQLite's group commit or the pool, so it would not say what the database spent).
 */
async function counted<T>(dialect: string, path: "sql" | "prisma", run: () => Promise<T>): Promise<T> {
  metrics()?.dbStatements.inc({ dialect, path });
  return run();
}

/** A transaction's runner whose statements are counted (statements per answered turn, docs/BENCHMARKS.md). */
function countedRunner(runner: SqlRunner, dialect: string): SqlRunner {
  return {
    dialect: runner.dialect,
    all: (text, ...params) => counted(dialect, "sql", () => runner.all(text, ...params)),
    one: (text, ...params) => counted(dialect, "sql", () => runner.one(text, ...params)),
    run: (text, ...params) => counted(dialect, "sql", () => runner.run(text, ...params)),
  };
}

/**
 * The hand-written SQL path with its timings recorded: each read and write, each
 * transaction's work, and how long a transaction waited before its work began
 * (the PostgreSQL pool; on SQLite the group commit and the connection's lock).
 * Every statement is counted too.
 */
export function timedSql<S extends SqlPath>(sql: S, dialect: string): S {
  const timed = async <T>(kind: "read" | "write", run: () => Promise<T[]>): Promise<T[]> => {
    const m = metrics();
    if (!m) return run();
    const started = performance.now();
    try {
      return await counted(dialect, "sql", run);
    } finally {
      m.dbStatementDuration.observe({ dialect, kind }, (performance.now() - started) / 1000);
    }
  };
  return {
    ...sql,
    read: <T>(text: string, ...params: SqlValue[]) => timed("read", () => sql.read<T>(text, ...params)),
    write: <T>(statement: WriteStatement) => timed("write", () => sql.write<T>(statement)),
    transaction: async <T>(fn: (runner: SqlRunner) => Promise<T>): Promise<T> => {
      const m = metrics();
      if (!m) return sql.transaction(fn);
      const called = performance.now();
      return sql.transaction(async (runner) => {
        const started = performance.now();
        m.dbPoolWait.observe({ dialect }, (started - called) / 1000);
        try {
          return await fn(countedRunner(runner, dialect));
        } finally {
          m.dbStatementDuration.observe({ dialect, kind: "transaction" }, (performance.now() - started) / 1000);
        }
      });
    },
  };
}

/** Prisma's driver adapter with each query counted (its BEGIN and COMMIT are not, as on the hand-written path). */
export function countedAdapter<F extends SqlDriverAdapterFactory>(factory: F, dialect: string): SqlDriverAdapterFactory {
  const query = (target: Pick<SqlDriverAdapter, "queryRaw" | "executeRaw">) => ({
    queryRaw: (q: SqlQuery) => counted(dialect, "prisma", () => target.queryRaw(q)),
    executeRaw: (q: SqlQuery) => counted(dialect, "prisma", () => target.executeRaw(q)),
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

import type { SqlRunner, SqlValue } from "../db/sql";
import { metrics } from "./registry";

type SqlPath = {
  transaction: <T>(fn: (sql: SqlRunner) => Promise<T>) => Promise<T>;
  read: <T>(sql: string, ...params: SqlValue[]) => Promise<T[]>;
  write: <T>(sql: string, ...params: SqlValue[]) => Promise<T[]>;
};

/**
 * The hand-written SQL path with its timings recorded: each read and write, each
 * transaction's work, and how long a transaction waited before its work began
 * (the PostgreSQL pool; on SQLite the group commit and the connection's lock).
 */
export function timedSql<S extends SqlPath>(sql: S, dialect: string): S {
  const timed =
    (kind: "read" | "write") =>
    async <T>(text: string, ...params: SqlValue[]): Promise<T[]> => {
      const m = metrics();
      if (!m) return sql[kind]<T>(text, ...params);
      const started = performance.now();
      try {
        return await sql[kind]<T>(text, ...params);
      } finally {
        m.dbStatementDuration.observe({ dialect, kind }, (performance.now() - started) / 1000);
      }
    };
  return {
    ...sql,
    read: timed("read"),
    write: timed("write"),
    transaction: async <T>(fn: (runner: SqlRunner) => Promise<T>): Promise<T> => {
      const m = metrics();
      if (!m) return sql.transaction(fn);
      const called = performance.now();
      return sql.transaction(async (runner) => {
        const started = performance.now();
        m.dbPoolWait.observe({ dialect }, (started - called) / 1000);
        try {
          return await fn(runner);
        } finally {
          m.dbStatementDuration.observe({ dialect, kind: "transaction" }, (performance.now() - started) / 1000);
        }
      });
    },
  };
}

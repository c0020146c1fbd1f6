import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import type { IsolationLevel, SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, Transaction } from "@prisma/driver-adapter-utils";
import { Mutex } from "async-mutex";
import type Database from "better-sqlite3";
import { log } from "../log";
import { SqliteCheckpointer } from "./sqlite-checkpointer";

/**
 * The process's one SQLite connection, shared by Prisma and the hot paths that
 * write with prepared statements (ingest, outbound messages).
 *
 * Prisma's better-sqlite3 adapter serializes transactions with a mutex but runs
 * every query outside a transaction straight on the same connection, i.e. inside
 * whatever transaction is open at that moment: a write that was acknowledged can
 * vanish when that transaction rolls back, and reads see uncommitted rows (the
 * same bug Bun fixed in oven-sh/bun#33581; reproduced with Prisma 7.10 in
 * tests/integration/sqlite-connection.test.ts). This wrapper puts every query,
 * every transaction and every `exclusive` block behind one mutex.
 */
export class SqliteConnection implements SqlDriverAdapterFactory {
  readonly provider = "sqlite" as const;
  readonly adapterName = "switchboard-better-sqlite3";
  private readonly mutex = new Mutex();
  private readonly inner: PrismaBetterSqlite3;
  private raw: Database.Database | undefined;
  /** Set when checkpoints run on a worker thread (the server's connection). */
  checkpointer: SqliteCheckpointer | undefined;

  constructor(
    private readonly config: { url: string; timeout: number },
    private readonly options: { backgroundCheckpointMs?: number } = {},
  ) {
    this.inner = new PrismaBetterSqlite3(config);
  }

  async connect(): Promise<SqlDriverAdapter> {
    const adapter = await this.inner.connect();
    // The adapter keeps its better-sqlite3 handle on `client` (not in its types).
    const client = (adapter as unknown as { client?: Database.Database }).client;
    if (!client || typeof client.prepare !== "function")
      throw new Error("@prisma/adapter-better-sqlite3 no longer exposes its connection: check sqlite-connection.ts");
    this.raw = client;
    if (this.options.backgroundCheckpointMs) {
      client.pragma("wal_autocheckpoint = 0");
      this.checkpointer = new SqliteCheckpointer(this.config.url, {
        intervalMs: this.options.backgroundCheckpointMs,
        onError: (error) => log.warn("sqlite.checkpoint_failed", { error }),
      });
    }
    return serialize(adapter, this.mutex, this.checkpointer);
  }

  /**
   * Runs `fn` on the raw connection while no Prisma query or transaction is in
   * flight. Must not be awaited from inside a Prisma transaction (it would wait
   * for that transaction forever).
   */
  async exclusive<T>(fn: (db: Database.Database) => T | Promise<T>): Promise<T> {
    if (!this.raw) throw new Error("the SQLite connection is not open yet");
    const raw = this.raw;
    return this.mutex.runExclusive(() => fn(raw));
  }
}

function serialize(adapter: SqlDriverAdapter, mutex: Mutex, checkpointer: SqliteCheckpointer | undefined): SqlDriverAdapter {
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: (query: SqlQuery) => mutex.runExclusive(() => adapter.queryRaw(query)),
    executeRaw: (query: SqlQuery) => mutex.runExclusive(() => adapter.executeRaw(query)),
    executeScript: (script: string) => mutex.runExclusive(() => adapter.executeScript(script)),
    getConnectionInfo: adapter.getConnectionInfo?.bind(adapter),
    dispose: async () => {
      await checkpointer?.close();
      await adapter.dispose();
    },
    async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
      const release = await mutex.acquire();
      try {
        return holdUntilEnd(await adapter.startTransaction(isolationLevel), release);
      } catch (error) {
        release();
        throw error;
      }
    },
  };
}

/** The transaction keeps the connection until it commits or rolls back. */
function holdUntilEnd(tx: Transaction, release: () => void): Transaction {
  let released = false;
  const end = async (finish: () => Promise<void>) => {
    try {
      await finish();
    } finally {
      if (!released) {
        released = true;
        release();
      }
    }
  };
  return {
    provider: tx.provider,
    adapterName: tx.adapterName,
    options: tx.options,
    queryRaw: (query) => tx.queryRaw(query),
    executeRaw: (query) => tx.executeRaw(query),
    commit: () => end(() => tx.commit()),
    rollback: () => end(() => tx.rollback()),
    createSavepoint: tx.createSavepoint?.bind(tx),
    rollbackToSavepoint: tx.rollbackToSavepoint?.bind(tx),
    releaseSavepoint: tx.releaseSavepoint?.bind(tx),
  };
}

import { Worker } from "node:worker_threads";
import { sqliteDriverPath } from "./sqlite-driver";

// Plain CommonJS evaluated from a string, like the checkpointer's: no file of its own
// in the Next.js build output.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path, { readonly: true, fileMustExist: true, timeout: 5000 });
const STOP = "read stopped at its deadline";
let deadline = 0;
// SQL that may scan long calls within_deadline() per row: past the deadline it
// throws, which ends the statement (SQLite has no other way to stop one here).
db.function("within_deadline", { deterministic: false }, () => {
  if (Date.now() > deadline) throw new Error(STOP);
  return 1;
});
const statements = new Map();
parentPort.on("message", (message) => {
  if (message === "close") {
    db.close();
    parentPort.close();
    return;
  }
  const { id, sql, params } = message;
  deadline = message.deadline;
  const rows = [];
  if (Date.now() > deadline) return parentPort.postMessage({ id, ok: true, rows, complete: false });
  try {
    let statement = statements.get(sql);
    if (!statement) {
      if (statements.size >= 256) statements.clear();
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    for (const row of statement.iterate(params)) rows.push(row);
    parentPort.postMessage({ id, ok: true, rows, complete: true });
  } catch (error) {
    if (error && error.message === STOP) parentPort.postMessage({ id, ok: true, rows, complete: false });
    else parentPort.postMessage({ id, ok: false, error: String(error && error.message) });
  }
});
`;

export type BoundedRows<T> = { rows: T[]; complete: boolean };
type Waiting = { resolve: (result: BoundedRows<never>) => void; reject: (error: Error) => void };

/**
 * Reads that may take long (message search) on a worker thread with its own
 * read-only connection: the request thread goes on serving webhooks and health
 * checks meanwhile (under WAL a reader never blocks the writer), and reads run
 * one at a time, so at most one core searches. A read still queued at its
 * deadline is not started; one running past it stops there (within_deadline())
 * and answers the rows it had.
 */
export class SqliteReadThread {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private requests = 0;

  constructor(private readonly path: string) {}

  read<T>(sql: string, params: (string | number | null)[], deadline: number): Promise<BoundedRows<T>> {
    const worker = this.start();
    const id = ++this.requests;
    return new Promise<BoundedRows<T>>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as Waiting["resolve"], reject });
      worker.postMessage({ id, sql, params, deadline });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const driver = sqliteDriverPath();
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path: this.path, driver } });
    worker.unref();
    worker.on(
      "message",
      ({ id, ok, rows, complete, error }: { id: number; ok: boolean; rows: never[]; complete: boolean; error?: string }) => {
        const waiting = this.waiting.get(id);
        this.waiting.delete(id);
        if (ok) waiting?.resolve({ rows, complete });
        else waiting?.reject(new Error(error));
      },
    );
    // A thread that died fails what it held; the next read starts a new one.
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiting of this.waiting.values()) waiting.reject(error);
      this.waiting.clear();
    };
    worker.on("error", fail);
    worker.on("exit", () => fail(new Error("the read thread exited")));
    this.worker = worker;
    return worker;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    worker.postMessage("close");
    await new Promise((resolve) => worker.once("exit", resolve));
  }
}

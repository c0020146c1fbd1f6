import { Worker } from "node:worker_threads";
import { sqliteDriverPath } from "./sqlite-driver";

// The worker is plain CommonJS evaluated from a string, so it needs no file of its
// own in the Next.js build output.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path, { timeout: 5000 });
db.pragma("synchronous = NORMAL");
const checkpoint = (id) => {
  try {
    const [result] = db.pragma("wal_checkpoint(PASSIVE)");
    parentPort.postMessage({ id, ok: true, busy: result.busy, log: result.log, checkpointed: result.checkpointed });
  } catch (error) {
    parentPort.postMessage({ id, ok: false, error: String(error && error.message) });
  }
};
const timer = setInterval(() => checkpoint(0), workerData.intervalMs);
parentPort.on("message", (message) => {
  if (typeof message === "number") checkpoint(message);
  if (message === "close") {
    clearInterval(timer);
    db.close();
    parentPort.close();
  }
});
`;

export type CheckpointResult = { ok: true; busy: number; log: number; checkpointed: number } | { ok: false; error: string };

/**
 * Copies the WAL back into the database file from a worker thread, so the
 * request thread never pays for it. SQLite's automatic checkpoint runs inside
 * the COMMIT that crosses 1,000 WAL pages and fsyncs there: a 5–10 ms stall of
 * the event loop every few dozen ingests. The server's connection turns that
 * off (wal_autocheckpoint = 0) and this thread runs PASSIVE checkpoints on its
 * own connection, which never block writers.
 */
export class SqliteCheckpointer {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, (result: CheckpointResult) => void>();
  private requests = 0;

  constructor(path: string, options: { intervalMs: number; onError: (error: string) => void }) {
    const driver = sqliteDriverPath();
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driver, intervalMs: options.intervalMs } });
    this.worker.unref();
    this.worker.on("message", ({ id, ...result }: CheckpointResult & { id: number }) => {
      if (!result.ok) options.onError(result.error);
      this.waiting.get(id)?.(result);
      this.waiting.delete(id);
    });
    this.worker.on("error", (error) => options.onError(error.message));
  }

  /** Checkpoints now and resolves with SQLite's answer (for tests and shutdown). */
  checkpoint(): Promise<CheckpointResult> {
    const id = ++this.requests;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.worker.postMessage(id);
    });
  }

  async close(): Promise<void> {
    this.worker.postMessage("close");
    await new Promise((resolve) => this.worker.once("exit", resolve));
  }
}

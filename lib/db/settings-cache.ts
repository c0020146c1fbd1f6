import { QUEUE_WORK, withArrival } from "./arrival";
import type { SqlValue } from "./sql";

export type SettingRow = { key: string; value: unknown };

type Read = <T>(sql: string, ...params: SqlValue[]) => Promise<T[]>;

/** How long a snapshot is trusted before the change log is asked whether it is still current. */
export const SETTINGS_RECHECK_MS = 1_000;

/**
 * The stored settings rows, one cache per Database (so one per process: every
 * route bundle and the worker share the app's Database). The hot path (every
 * ingest, every turn) reads settings; the database is asked at most once a
 * second whether they changed — one small read of the change log's size and
 * newest id, which every write of a setting bumps in the same transaction — and
 * the rows are re-read only when they did. A change made through this handle
 * invalidates it at once; one made by another instance is seen within a second.
 */
export class SettingRowsCache {
  private snapshot: { version: string; rows: readonly SettingRow[] } | null = null;
  private checkedAt = 0;
  private pending: Promise<readonly SettingRow[]> | null = null;
  /** Bumped by invalidate(): a read that started before it must not store its result. */
  private epoch = 0;

  constructor(
    private readonly read: Read,
    /** SQLite hands a JSON column back as its text; PostgreSQL parses it. */
    private readonly jsonAsText: boolean,
    private readonly now: () => number = Date.now,
  ) {}

  /** The current rows: an immutable snapshot (the same array until something changes). */
  rows(): Promise<readonly SettingRow[]> {
    if (this.snapshot && this.now() - this.checkedAt < SETTINGS_RECHECK_MS) return Promise.resolve(this.snapshot.rows);
    // Callers that miss together share one read (1,000 turns starting at once read once).
    if (this.pending) return this.pending;
    // Everyone who misses waits for this one read, so it goes before other work on the
    // PostgreSQL connection queue, not at the priority of whoever missed first.
    const pending = withArrival(QUEUE_WORK, () => this.refresh()).finally(() => {
      if (this.pending === pending) this.pending = null;
    });
    this.pending = pending;
    return pending;
  }

  /** A setting was written through this handle: the next read goes to the database. */
  invalidate() {
    this.epoch++;
    this.snapshot = null;
    this.pending = null;
  }

  private async refresh(): Promise<readonly SettingRow[]> {
    const epoch = this.epoch;
    const checkedAt = this.now();
    // Count and newest id together: a change committed late with a lower id still changes the count (rows are never deleted).
    const [head] = await this.read<{ n: number | string; top: number | string | null }>(
      `SELECT COUNT(*) AS "n", MAX("id") AS "top" FROM "SettingChange"`,
    );
    const version = `${head?.n ?? 0}:${head?.top ?? ""}`;
    let snapshot = this.snapshot;
    if (snapshot?.version !== version) {
      const rows = await this.read<{ key: string; value: unknown }>(`SELECT "key", "value" FROM "Setting"`);
      snapshot = {
        version,
        rows: Object.freeze(rows.map((r) => ({ key: r.key, value: this.jsonAsText ? JSON.parse(r.value as string) : r.value }))),
      };
    }
    if (epoch === this.epoch) {
      this.snapshot = snapshot;
      this.checkedAt = checkedAt;
    }
    return snapshot.rows;
  }
}

import { QUEUE_WORK, withArrival } from "./arrival";
import type { SqlValue } from "./sql";

export type SettingRow = { key: string; value: unknown };

/** A bot's columns that the settings in force need: its overrides, instructions and model (lib/settings/reader.ts). */
export type BotAgentRow = {
  id: number;
  adapter: string;
  instructions: string | null;
  model: string | null;
  modelApiKey: string | null;
  settings: string | null;
};

/** One immutable snapshot: the global setting rows and every bot's agent columns, read together. */
export type SettingsSnapshot = { readonly rows: readonly SettingRow[]; readonly bots: readonly BotAgentRow[] };

type Read = <T>(sql: string, ...params: SqlValue[]) => Promise<T[]>;

/** How long a snapshot is trusted before the database is asked whether it is still current. */
export const SETTINGS_RECHECK_MS = 1_000;

/**
 * The stored settings, global and per bot, one cache per Database (so one per
 * process: every route bundle and the worker share the app's Database). The hot
 * path (every ingest, every turn) reads them; the database is asked at most once
 * a second — the change log's size and newest id (every write of a setting bumps
 * them in the same transaction; the rows are re-read only when they moved) and
 * the bots' few agent columns (a handful of rows; a bot's key re-sealed or a bot
 * added writes no change-log row). A change made through this handle (a setting
 * or any bot row: lib/db/settings.ts, lib/db/bots.ts) invalidates it at once;
 * one made by another instance is seen within a second.
 */
export class SettingsCache {
  /** The snapshot and what it was read at: the change log's count and newest id, and the bots' columns as text. */
  private snapshot: { rowsVersion: string; botsText: string; value: SettingsSnapshot } | null = null;
  private checkedAt = 0;
  private pending: Promise<SettingsSnapshot> | null = null;
  /** Bumped by invalidate(): a read that started before it must not store its result. */
  private epoch = 0;

  constructor(
    private readonly read: Read,
    /** SQLite hands a JSON column back as its text; PostgreSQL parses it. */
    private readonly jsonAsText: boolean,
    private readonly now: () => number = Date.now,
  ) {}

  /** The current snapshot: the same object until something changes. */
  current(): Promise<SettingsSnapshot> {
    if (this.snapshot && this.now() - this.checkedAt < SETTINGS_RECHECK_MS) return Promise.resolve(this.snapshot.value);
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

  /** A setting or a bot was written through this handle: the next read goes to the database. */
  invalidate() {
    this.epoch++;
    this.snapshot = null;
    this.pending = null;
  }

  private async refresh(): Promise<SettingsSnapshot> {
    const epoch = this.epoch;
    const checkedAt = this.now();
    // Count and newest id together: a change committed late with a lower id still changes the count (rows are never deleted).
    const [head] = await this.read<{ n: number | string; top: number | string | null }>(
      `SELECT COUNT(*) AS "n", MAX("id") AS "top" FROM "SettingChange"`,
    );
    const bots = await this.read<BotAgentRow>(
      `SELECT "id", "adapter", "instructions", "model", "modelApiKey", "settings" FROM "Bot" ORDER BY "id"`,
    );
    const rowsVersion = `${head?.n ?? 0}:${head?.top ?? ""}`;
    const botsText = JSON.stringify(bots);
    let snapshot = this.snapshot;
    if (snapshot?.rowsVersion !== rowsVersion || snapshot.botsText !== botsText) {
      const rows = snapshot?.rowsVersion === rowsVersion ? snapshot.value.rows : await this.readRows();
      const value = Object.freeze({ rows, bots: Object.freeze(bots.map((b) => Object.freeze({ ...b, id: Number(b.id) }))) });
      snapshot = { rowsVersion, botsText, value };
    }
    if (epoch === this.epoch) {
      this.snapshot = snapshot;
      this.checkedAt = checkedAt;
    }
    return snapshot.value;
  }

  private async readRows(): Promise<readonly SettingRow[]> {
    const rows = await this.read<{ key: string; value: unknown }>(`SELECT "key", "value" FROM "Setting"`);
    return Object.freeze(rows.map((r) => ({ key: r.key, value: this.jsonAsText ? JSON.parse(r.value as string) : r.value })));
  }
}

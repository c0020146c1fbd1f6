import type { Database } from "../db/database";
import { listSettingChanges, writeSettings } from "../db/settings";
import type { SettingRow } from "../db/settings-cache";
import { publish } from "../events/bus";
import { log } from "../log";
import { changedEntries } from "./change-log";
import { defaultSettings, settingsSchema, settingsUpdateSchema, type Settings } from "./schema";

/**
 * Current settings: stored values over defaults. Read per message and per turn,
 * so a change takes effect on the next message without a restart: at once on the
 * instance that made it, within a second on the others (the rows are cached on
 * the Database: lib/db/settings-cache.ts). A stored value that no longer
 * validates falls back to its default, logged.
 */
export async function getSettings(db: Database): Promise<Settings> {
  const rows = await db.settingRows.rows();
  let settings = parsed.get(rows);
  if (!settings) {
    settings = parse(rows);
    parsed.set(rows, settings);
  }
  return settings;
}

/** Validation memoized per snapshot of rows (a snapshot never changes; a new one is a new array). */
const parsed = new WeakMap<readonly SettingRow[], Settings>();

function parse(rows: readonly SettingRow[]): Settings {
  const merged: Record<string, unknown> = { ...defaultSettings };
  for (const { key, value } of rows) {
    if (!(key in defaultSettings)) continue;
    const field = settingsSchema.shape[key as keyof Settings];
    const result = field.safeParse(value);
    if (result.success) merged[key] = result.data;
    else log.warn("settings.invalid_stored_value", { key });
  }
  return merged as Settings;
}

/** Validates a partial update, stores only the keys that change, logs who changed them. */
export async function updateSettings(db: Database, input: unknown, changedBy: string): Promise<Settings> {
  const update = settingsUpdateSchema.parse(input);
  const current = await getSettings(db);
  const changes = changedEntries(current, update);
  if (changes.length) await writeSettings(db, changes, changedBy);
  if (changes.length) publish(db, { type: "settings" });
  return { ...current, ...update };
}

export { listSettingChanges };

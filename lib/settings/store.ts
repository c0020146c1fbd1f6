import type { Database } from "../db/database";
import { listSettingChanges, readSettingRows, writeSettings } from "../db/settings";
import { publish } from "../events/bus";
import { log } from "../log";
import { defaultSettings, settingsSchema, settingsUpdateSchema, type Settings } from "./schema";

/**
 * Current settings: stored values over defaults. Read per turn (one small query)
 * so a change takes effect on the next message on every instance, no restart.
 * A stored value that no longer validates falls back to its default, logged.
 */
export async function getSettings(db: Database): Promise<Settings> {
  // A one-second cache per client: the hot path (every ingest, every turn) reads
  // settings, and a second of staleness across instances is invisible to people.
  // Callers that miss together share one read (1,000 turns starting at once read it once).
  const hit = cache.get(db);
  if (hit && hit.until > Date.now()) return hit.settings;
  const pending = reading.get(db);
  if (pending) return pending;
  const read = readSettings(db)
    .then((settings) => {
      if (reading.get(db) === read) cache.set(db, { settings, until: Date.now() + 1_000 });
      return settings;
    })
    .finally(() => {
      if (reading.get(db) === read) reading.delete(db);
    });
  reading.set(db, read);
  return read;
}

const cache = new WeakMap<Database, { settings: Settings; until: number }>();
const reading = new WeakMap<Database, Promise<Settings>>();

async function readSettings(db: Database): Promise<Settings> {
  const rows = await readSettingRows(db);
  const merged: Record<string, unknown> = { ...defaultSettings };
  for (const { key, value } of rows) {
    if (!(key in defaultSettings)) continue;
    const field = settingsSchema.shape[key as keyof Settings];
    const parsed = field.safeParse(value);
    if (parsed.success) merged[key] = parsed.data;
    else log.warn("settings.invalid_stored_value", { key });
  }
  return merged as Settings;
}

/** Validates a partial update, stores only the keys that change, logs who changed them. */
export async function updateSettings(db: Database, input: unknown, changedBy: string): Promise<Settings> {
  const update = settingsUpdateSchema.parse(input);
  const current = await getSettings(db);
  const changes = Object.entries(update)
    .filter(([key, value]) => JSON.stringify(current[key as keyof Settings]) !== JSON.stringify(value))
    .map(([key, newValue]) => ({ key, oldValue: current[key as keyof Settings], newValue }));
  if (changes.length) await writeSettings(db, changes, changedBy);
  cache.delete(db);
  reading.delete(db);
  if (changes.length) publish(db, { type: "settings" });
  return { ...current, ...update };
}

export { listSettingChanges };

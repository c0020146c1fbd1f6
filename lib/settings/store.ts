import type { Database } from "../db/database";
import { listSettingChanges, writeSettings } from "../db/settings";
import { publish } from "../events/bus";
import { changedEntries } from "./change-log";
import { settingsFor } from "./reader";
import { settingsUpdateSchema, type Settings } from "./schema";

/** Validates a partial update, stores only the keys that change, logs who changed them. */
export async function updateSettings(db: Database, input: unknown, changedBy: string): Promise<Settings> {
  const update = settingsUpdateSchema.parse(input);
  const current = await settingsFor(db);
  const changes = changedEntries(current, update);
  if (changes.length) await writeSettings(db, changes, changedBy);
  if (changes.length) publish(db, { type: "settings" });
  return { ...current, ...update };
}

export { listSettingChanges };

import type { Db } from "./client";

export function readSettingRows(db: Db) {
  return db.setting.findMany({ select: { key: true, value: true } });
}

/** Writes the changed keys and their change-log rows in one transaction. */
export function writeSettings(db: Db, changes: { key: string; oldValue: unknown; newValue: unknown }[], changedBy: string) {
  return db.$transaction(
    changes.flatMap(({ key, oldValue, newValue }) => [
      db.setting.upsert({
        where: { key },
        create: { key, value: newValue as never, updatedBy: changedBy },
        update: { value: newValue as never, updatedBy: changedBy },
      }),
      db.settingChange.create({ data: { key, oldValue: (oldValue ?? null) as never, newValue: newValue as never, changedBy } }),
    ]),
  );
}

export function listSettingChanges(db: Db, take = 50) {
  return db.settingChange.findMany({ orderBy: { id: "desc" }, take });
}

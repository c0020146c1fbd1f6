import type { Database } from "./database";
import { Prisma } from "./generated/sqlite/client";

// A JSON column cannot take a bare null: Prisma wants its JsonNull marker (one runtime for both clients).
const json = (value: unknown) => (value === null || value === undefined ? Prisma.JsonNull : value) as never;

/**
 * Writes the changed keys and their change-log rows in one transaction (the log
 * is what other instances' caches watch: settings-cache.ts), and drops this
 * handle's cached rows. A key set back to null (settings whose null means "the
 * server's environment") loses its row.
 */
export async function writeSettings(db: Database, changes: { key: string; oldValue: unknown; newValue: unknown }[], changedBy: string) {
  await db.prisma.$transaction(
    changes.flatMap(({ key, oldValue, newValue }) => [
      newValue === null
        ? db.prisma.setting.deleteMany({ where: { key } })
        : db.prisma.setting.upsert({
            where: { key },
            create: { key, value: newValue as never, updatedBy: changedBy },
            update: { value: newValue as never, updatedBy: changedBy },
          }),
      db.prisma.settingChange.create({ data: { key, oldValue: json(oldValue), newValue: json(newValue), changedBy } }),
    ]),
  );
  db.settingRows.invalidate();
}

export function listSettingChanges(db: Database, take = 50) {
  return db.prisma.settingChange.findMany({ orderBy: { id: "desc" }, take });
}

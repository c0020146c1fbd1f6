import type { Database } from "./database";
import { Prisma } from "./generated/sqlite/client";

export function readSettingRows(db: Database) {
  return db.prisma.setting.findMany({ select: { key: true, value: true } });
}

// A JSON column cannot take a bare null: Prisma wants its JsonNull marker (one runtime for both clients).
const json = (value: unknown) => (value === null || value === undefined ? Prisma.JsonNull : value) as never;

/**
 * Writes the changed keys and their change-log rows in one transaction. A key set
 * back to null (settings whose null means "the server's environment") loses its row.
 */
export function writeSettings(db: Database, changes: { key: string; oldValue: unknown; newValue: unknown }[], changedBy: string) {
  return db.prisma.$transaction(
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
}

export function listSettingChanges(db: Database, take = 50) {
  return db.prisma.settingChange.findMany({ orderBy: { id: "desc" }, take });
}

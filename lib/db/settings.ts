import type { BotChange } from "./bots";
import type { BotScope } from "./conversation-scope";
import type { Database } from "./database";
import { Prisma } from "./generated/sqlite/client";

// A JSON column cannot take a bare null: Prisma wants its JsonNull marker (one runtime for both clients).
const json = (value: unknown) => (value === null || value === undefined ? Prisma.JsonNull : value) as never;

/** One change-log row: a key, from what to what (null: the server default, or for a bot "inherits"). */
export type SettingChangeEntry = { key: string; oldValue: unknown; newValue: unknown };

const logRow = (botId: number | null, changedBy: string) => (entry: SettingChangeEntry) => ({
  botId,
  key: entry.key,
  oldValue: json(entry.oldValue),
  newValue: json(entry.newValue),
  changedBy,
});

/**
 * Writes the changed keys and their change-log rows in one transaction (the log
 * is what other instances' caches watch: settings-cache.ts), and drops this
 * handle's cached snapshot. A key set back to null (settings whose null means "the
 * server's environment") loses its row.
 */
export async function writeSettings(db: Database, changes: SettingChangeEntry[], changedBy: string) {
  await db.prisma.$transaction(
    changes.flatMap((change) => [
      change.newValue === null
        ? db.prisma.setting.deleteMany({ where: { key: change.key } })
        : db.prisma.setting.upsert({
            where: { key: change.key },
            create: { key: change.key, value: change.newValue as never, updatedBy: changedBy },
            update: { value: change.newValue as never, updatedBy: changedBy },
          }),
      db.prisma.settingChange.create({ data: logRow(null, changedBy)(change) }),
    ]),
  );
  db.settingsCache.invalidate();
}

/**
 * Writes a change to a bot's row and the change-log rows of its own settings in one
 * transaction. With `from`, only over the row the caller read (its `updatedAt`, which
 * every write bumps): false, and nothing written, when another change came first.
 */
export async function writeBotChange(
  db: Database,
  id: number,
  change: BotChange,
  log: { entries: SettingChangeEntry[]; changedBy: string },
  from?: { updatedAt: Date },
): Promise<boolean> {
  const written = await db.prisma.$transaction(async (tx) => {
    const { count } = await tx.bot.updateMany({ where: { id, ...(from ? { updatedAt: from.updatedAt } : {}) }, data: change });
    if (count !== 1) return false;
    if (log.entries.length) await tx.settingChange.createMany({ data: log.entries.map(logRow(id, log.changedBy)) });
    return true;
  });
  if (written) db.settingsCache.invalidate();
  return written;
}

/**
 * The newest changes, global and per bot, each with its bot's name (an erased bot's is gone: null).
 * A caller limited to some bots gets the global ones and their bots' only: another bot's hold its
 * private instructions.
 */
export async function listSettingChanges(db: Database, scope?: BotScope, take = 50) {
  const where = scope ? { OR: [{ botId: null }, { botId: { in: scope } }] } : {};
  const rows = await db.prisma.settingChange.findMany({ where, orderBy: { id: "desc" }, take });
  const ids = [...new Set(rows.flatMap((r) => (r.botId === null ? [] : [r.botId])))];
  const bots = ids.length ? await db.prisma.bot.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } }) : [];
  const names = new Map(bots.map((b) => [b.id, b.name]));
  return rows.map(({ botId, ...row }) => ({ ...row, bot: botId === null ? null : { id: botId, name: names.get(botId) ?? null } }));
}

import type { BotScope } from "./conversation-scope";
import type { Database } from "./database";

/**
 * Bot rows (lib/bots decides; this module reads and writes). Credentials arrive
 * and leave here sealed: nothing in this module sees a token in the clear.
 */
export type BotRow = NonNullable<Awaited<ReturnType<typeof findBot>>>;

export function findBot(db: Database, id: number) {
  return db.prisma.bot.findUnique({ where: { id } });
}

export function findBotByAdapter(db: Database, adapter: string) {
  return db.prisma.bot.findUnique({ where: { adapter } });
}

/** Every bot but the removed ones (with them when asked), oldest first. */
export function listBots(db: Database, options: { removed?: boolean } = {}) {
  return db.prisma.bot.findMany({ where: options.removed ? {} : { status: { not: "removed" } }, orderBy: { id: "asc" } });
}

export type NewBot = {
  platform: "telegram" | "line";
  name: string;
  username: string | null;
  pictureUrl: string | null;
  platformBotId: string | null;
  credentials: string;
  tokenHint: string;
  webhookSecret: string;
};

/**
 * Inserts a bot and names its adapter after its id ("telegram-7"), in one transaction.
 * `refuse` sees the rows that already hold the platform's bot id, inside that
 * transaction, and throws to add nothing: on PostgreSQL under a lock on that id,
 * so two adds of one bot at once (a double submit, two instances) make one row;
 * SQLite runs one write transaction at a time.
 */
export async function insertBot(db: Database, bot: NewBot, refuse: (holders: BotRow[]) => void = () => {}) {
  const created = await db.prisma.$transaction(async (tx) => {
    if (bot.platformBotId) {
      if (db.dialect === "postgresql")
        await tx.$queryRaw`SELECT 1 AS "locked" FROM (SELECT pg_advisory_xact_lock(hashtext(${`bot:${bot.platform}:${bot.platformBotId}`}))) AS l`;
      refuse(
        await tx.bot.findMany({
          where: { platform: bot.platform, platformBotId: bot.platformBotId, status: { not: "removed" } },
          orderBy: { id: "asc" },
        }),
      );
    }
    const row = await tx.bot.create({ data: { ...bot, source: "api", adapter: `pending-${crypto.randomUUID()}` } });
    return tx.bot.update({ where: { id: row.id }, data: { adapter: `${bot.platform}-${row.id}` } });
  });
  db.settingsCache.invalidate();
  return created;
}

export type BotChange = Partial<{
  name: string;
  status: string;
  instructions: string | null;
  model: string | null;
  modelApiKey: string | null;
  settings: string | null;
  webhookUrl: string | null;
  removedAt: Date | null;
  credentials: string | null;
}>;

/** A bot's own settings (its agent): written only with their change-log rows (settings.ts `writeBotChange`). */
type AgentColumns = "instructions" | "model" | "modelApiKey" | "settings";

export async function updateBot(db: Database, id: number, change: Omit<BotChange, AgentColumns>) {
  return changed(db, await db.prisma.bot.update({ where: { id }, data: change }));
}

/** Every write of a bot row drops this handle's settings snapshot (it holds the bots' agent columns): seen at once here. */
function changed<T>(db: Database, result: T): T {
  db.settingsCache.invalidate();
  return result;
}

/** Deletes a bot's row (erase); its conversations go with it, cascading to their messages. */
export async function eraseBot(db: Database, id: number) {
  await db.prisma.conversation.deleteMany({ where: { botId: id } });
  await db.prisma.bot.delete({ where: { id } });
  db.settingsCache.invalidate();
}

/**
 * The row of a bot configured by the environment (adapter "telegram" or "line"),
 * created on first start, its name kept current. Conversations stored before bots
 * were records (no botId) are given to it.
 */
export async function ensureEnvBot(
  db: Database,
  bot: { platform: "telegram" | "line"; name: string; username: string | null; status: string },
) {
  const row = await db.prisma.bot.upsert({
    where: { adapter: bot.platform },
    create: { ...bot, source: "env", adapter: bot.platform },
    update: { name: bot.name, username: bot.username, status: bot.status },
  });
  db.settingsCache.invalidate();
  await db.prisma.conversation.updateMany({ where: { channel: bot.platform, botId: null }, data: { botId: row.id } });
  return row;
}

/** Sets an identity learned later (the env Telegram bot's getMe answers after the start). */
export async function setBotIdentity(
  db: Database,
  id: number,
  identity: { name?: string; username: string | null; platformBotId: string | null },
) {
  return changed(db, await db.prisma.bot.update({ where: { id }, data: identity }));
}

/** A bot's conversation count and last activity, for the list. */
export async function botActivity(db: Database) {
  const rows = await db.prisma.conversation.groupBy({ by: ["botId"], _count: { _all: true }, _max: { lastMessageAt: true } });
  return new Map(rows.map((r) => [r.botId, { conversations: r._count._all, lastMessageAt: r._max.lastMessageAt }]));
}

/**
 * The bots' names and status, removed ones too (labels and filters; no credential column is read): every bot's
 * for an unlimited caller, only theirs for an agent limited to some bots (none for an empty list).
 */
export function listBotLabels(db: Database, scope?: BotScope) {
  return db.prisma.bot.findMany({
    where: scope ? { id: { in: scope } } : {},
    select: { id: true, platform: true, name: true, username: true, status: true },
    orderBy: { id: "asc" },
  });
}

/** Every sealed column of every bot (key rotation reads and rewrites them). */
export function listSealed(db: Database) {
  return db.prisma.bot.findMany({ select: { id: true, credentials: true, webhookSecret: true, modelApiKey: true } });
}

export async function writeSealed(
  db: Database,
  id: number,
  sealed: { credentials: string | null; webhookSecret: string | null; modelApiKey: string | null },
) {
  return changed(db, await db.prisma.bot.update({ where: { id }, data: sealed }));
}

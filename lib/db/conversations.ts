import { messagePreview } from "./message-preview";
import { type BotScope, conversationScopeSql, conversationScopeWhere } from "./conversation-scope";
import type { Database } from "./database";
import type { ChatFamily } from "./ingest";
import { labelNamesOf } from "./labels";
import type { SqlValue } from "./sql";
import type { Prisma } from "./generated/sqlite/client";

export function findConversation(db: Database, id: number) {
  return db.prisma.conversation.findUnique({ where: { id } });
}

/** A conversation with its active fork, as the timeline shows it. */
export function findConversationWithActiveFork(db: Database, id: number) {
  return db.prisma.conversation.findUnique({ where: { id }, include: { activeFork: { select: { id: true, title: true, status: true } } } });
}

export function findConversationByChat(db: Database, channel: string, platformChatId: string) {
  return db.prisma.conversation.findUnique({ where: { channel_platformChatId: { channel, platformChatId } } });
}

/** The inbox's views: which conversations each shows. */
export const inboxViews = ["all", "open", "mine", "unassigned", "handoff", "resolved", "snoozed"] as const;
export type InboxView = (typeof inboxViews)[number];

export type ConversationListOptions = {
  search?: string;
  take: number;
  view?: InboxView;
  /**
   * activity: latest message first; waiting: the user who has waited longest for an
   * answer first; priority: urgent first down to none, then latest message first.
   */
  sort?: "activity" | "waiting" | "priority";
  /** Only conversations carrying this label (a Label id). */
  labelId?: number;
  /** Only conversations of this priority. */
  priority?: string;
  /** The caller's operator id, for "mine" (0 for the API token: nothing is its). */
  me?: number;
  /** Only this bot's conversations. */
  botId?: number;
  /** The caller's bots (null / absent: every bot). */
  bots?: BotScope;
};

/** The WHERE of one inbox view. */
export function inboxViewWhere(view: InboxView, me: number): Prisma.ConversationWhereInput {
  switch (view) {
    case "all":
      return {};
    case "open":
      return { status: "open" };
    case "mine":
      return { status: "open", assigneeId: me };
    case "unassigned":
      return { status: "open", assigneeId: null };
    case "handoff":
      return { handoffState: { in: ["waiting", "assigned"] } };
    case "resolved":
      return { status: "resolved" };
    case "snoozed":
      return { status: "snoozed" };
  }
}

/** The list's filters besides the view (bot, label, priority) as a Prisma `where`. */
function filterWhere(options: Pick<ConversationListOptions, "botId" | "labelId" | "priority">): Prisma.ConversationWhereInput {
  return {
    ...(options.botId ? { botId: options.botId } : {}),
    ...(options.labelId ? { labels: { some: { labelId: options.labelId } } } : {}),
    ...(options.priority ? { priority: options.priority } : {}),
  };
}

/** How many conversations each view holds (within the label and priority filters, when given). */
export async function countInboxViews(
  db: Database,
  me: number,
  bots?: BotScope,
  filters: Pick<ConversationListOptions, "labelId" | "priority"> = {},
): Promise<Record<InboxView, number>> {
  const counts = await Promise.all(
    inboxViews.map((view) =>
      db.prisma.conversation.count({ where: { AND: [inboxViewWhere(view, me), conversationScopeWhere(bots), filterWhere(filters)] } }),
    ),
  );
  return Object.fromEntries(inboxViews.map((view, i) => [view, counts[i]])) as Record<InboxView, number>;
}

/** The SQL of one inbox view (the same rows as inboxViewWhere), for the filtered list. */
function inboxViewSql(view: InboxView, me: number): { where: string; params: SqlValue[] } {
  switch (view) {
    case "all":
      return { where: "TRUE", params: [] };
    case "open":
      return { where: `c."status" = 'open'`, params: [] };
    case "mine":
      return { where: `c."status" = 'open' AND c."assigneeId" = ?`, params: [me] };
    case "unassigned":
      return { where: `c."status" = 'open' AND c."assigneeId" IS NULL`, params: [] };
    case "handoff":
      return { where: `c."handoffState" IN ('waiting', 'assigned')`, params: [] };
    case "resolved":
      return { where: `c."status" = 'resolved'`, params: [] };
    case "snoozed":
      return { where: `c."status" = 'snoozed'`, params: [] };
  }
}

/** SQL rank of a priority, for the priority sort (higher first). */
const PRIORITY_RANK = `CASE c."priority" WHEN 'urgent' THEN 4 WHEN 'high' THEN 3 WHEN 'medium' THEN 2 WHEN 'low' THEN 1 ELSE 0 END`;

/**
 * The ids of one view's conversations in the list's order, for what Prisma cannot
 * say: a `search` in the title, chat id or a sender's name, and the priority sort (a
 * rank, not the names' order). Plain SQL rather than Prisma's `contains`: that is a
 * LIKE, where a typed % or _ is a wildcard and SQLite has no escape for it;
 * instr/strpos match the text as typed (and ignore case on both databases).
 */
async function orderedConversationIds(db: Database, options: ConversationListOptions, search: string | undefined): Promise<number[]> {
  const view = inboxViewSql(options.view ?? "all", options.me ?? 0);
  const has = (column: string) => (db.dialect === "sqlite" ? `instr(lower(${column}), ?) > 0` : `strpos(lower(${column}), ?) > 0`);
  const recent = `c."lastMessageAt" DESC NULLS LAST, c."id" DESC`;
  const order =
    options.sort === "waiting"
      ? `c."waitingSince" ASC NULLS LAST, ${recent}`
      : options.sort === "priority"
        ? `${PRIORITY_RANK} DESC, ${recent}`
        : recent;
  const scope = conversationScopeSql(options.bots, "c");
  const where: string[] = [view.where, scope.sql];
  const params: SqlValue[] = [...view.params, ...scope.params];
  if (options.botId) {
    where.push(`c."botId" = ?`);
    params.push(options.botId);
  }
  if (options.labelId) {
    where.push(`EXISTS (SELECT 1 FROM "ConversationLabel" cl WHERE cl."conversationId" = c."id" AND cl."labelId" = ?)`);
    params.push(options.labelId);
  }
  if (options.priority) {
    where.push(`c."priority" = ?`);
    params.push(options.priority);
  }
  if (search) {
    const needle = search.toLowerCase();
    where.push(`(${has(`c."title"`)} OR ${has(`c."platformChatId"`)}
       OR EXISTS (SELECT 1 FROM "Message" m WHERE m."conversationId" = c."id" AND ${has(`m."senderName"`)}))`);
    params.push(needle, needle, needle);
  }
  const rows = await db.read<{ id: number }>(
    `SELECT c."id" FROM "Conversation" c WHERE ${where.join(" AND ")} ORDER BY ${order} LIMIT ?`,
    ...params,
    options.take,
  );
  return rows.map((row) => Number(row.id));
}

/**
 * Conversations of one inbox view by last activity (or longest waiting first, or by
 * priority), with their label names, the last message and the unread count
 * (inbound messages since an operator last opened it).
 */
export async function listConversations(db: Database, options: ConversationListOptions) {
  const search = options.search?.trim();
  const ids = search || options.sort === "priority" ? await orderedConversationIds(db, options, search) : undefined;
  const found = await db.prisma.conversation.findMany({
    where: ids
      ? { id: { in: ids } }
      : { AND: [inboxViewWhere(options.view ?? "all", options.me ?? 0), filterWhere(options), conversationScopeWhere(options.bots)] },
    orderBy:
      options.sort === "waiting"
        ? [{ waitingSince: { sort: "asc", nulls: "last" } }, { lastMessageAt: { sort: "desc", nulls: "last" } }, { id: "desc" }]
        : [{ lastMessageAt: { sort: "desc", nulls: "last" } }, { id: "desc" }],
    take: options.take,
    include: {
      activeFork: { select: { id: true, title: true, status: true } },
      messages: {
        orderBy: [{ sentAt: "desc" }, { id: "desc" }],
        take: 1,
        select: {
          text: true,
          senderName: true,
          senderKind: true,
          sentAt: true,
          deletedAt: true,
          attachments: { orderBy: { position: "asc" }, take: 1, select: { kind: true, fileName: true, details: true } },
        },
      },
    },
  });
  const byId = new Map(found.map((c) => [c.id, c]));
  const conversations = ids ? ids.flatMap((id) => byId.get(id) ?? []) : found;
  const [labels, unread] = await Promise.all([
    labelNamesOf(
      db,
      conversations.map((c) => c.id),
    ),
    Promise.all(
      conversations.map((c) =>
        db.prisma.message.count({
          where: { conversationId: c.id, direction: "inbound", ...(c.lastReadAt ? { createdAt: { gt: c.lastReadAt } } : {}) },
        }),
      ),
    ),
  ]);
  return conversations.map(({ messages, ...c }, i) => ({
    ...c,
    labels: labels.get(c.id) ?? [],
    lastMessage: lastMessageView(messages[0]),
    unread: unread[i],
  }));
}

/**
 * The list's last message: a file without a caption previews as its file ("📎 invoice.pdf", "Photo"), never as
 * nothing; a deleted one (by its sender, or by an operator from the chat) as "Deleted message", as the chat shows it.
 */
function lastMessageView(
  m:
    | {
        text: string;
        senderName: string | null;
        senderKind: string;
        sentAt: Date;
        deletedAt: Date | null;
        attachments: { kind: string; fileName: string | null; details: unknown }[];
      }
    | undefined,
) {
  if (!m) return null;
  const { attachments, deletedAt, ...rest } = m;
  if (deletedAt) return { ...rest, text: "Deleted message" };
  const file = attachments[0];
  const emoji = (file?.details as { emoji?: unknown } | null)?.emoji;
  return { ...rest, text: messagePreview(m.text, file ? { ...file, emoji: typeof emoji === "string" ? emoji : null } : null) };
}

export function markConversationRead(db: Database, id: number, at: Date) {
  return db.prisma.conversation.update({ where: { id }, data: { lastReadAt: at } });
}

/** Pauses or resumes the agent in one conversation (operators answer by hand meanwhile). */
export function setAgentEnabled(db: Database, id: number, agentEnabled: boolean) {
  return db.prisma.conversation.update({ where: { id }, data: { agentEnabled } });
}

/** The bot's membership of a conversation's chat: null = it may send there. */
export async function readMembership(db: Database, id: number): Promise<string | null> {
  const [row] = await db.read<{ membership: string | null }>(`SELECT "membership" FROM "Conversation" WHERE "id" = ?`, id);
  return row?.membership ?? null;
}

/**
 * Records that the platform refused a send because the bot is no longer in the
 * chat (a 403), for the conversation and, for a forum, its topics.
 */
export async function markMembership(db: Database, channel: string, { chatId, topicKeysLike }: ChatFamily, membership: string, at: Date) {
  await db.prisma.conversation.updateMany({
    where: {
      channel,
      OR: [{ platformChatId: chatId }, { platformChatId: { startsWith: topicKeysLike.slice(0, -1) } }],
    },
    data: { membership, membershipChangedAt: at },
  });
}

/** What the operator reads when a send is refused before it leaves. */
export function membershipError(membership: string): string {
  if (membership === "blocked") return "not sent: the user blocked the bot (it can send again once they unblock it)";
  if (membership === "removed") return "not sent: the bot was removed from this chat";
  return "not sent: the bot left this chat";
}

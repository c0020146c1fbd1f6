import { splitTopicChatId, topicKeysLike } from "../envelope/topic-key";
import type { Database } from "./database";
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
  /** activity: latest message first; waiting: the user who has waited longest for an answer first. */
  sort?: "activity" | "waiting";
  /** The caller's operator id, for "mine" (0 for the API token: nothing is its). */
  me?: number;
  /** Only this bot's conversations. */
  botId?: number;
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

/** How many conversations each view holds. */
export async function countInboxViews(db: Database, me: number): Promise<Record<InboxView, number>> {
  const counts = await Promise.all(inboxViews.map((view) => db.prisma.conversation.count({ where: inboxViewWhere(view, me) })));
  return Object.fromEntries(inboxViews.map((view, i) => [view, counts[i]])) as Record<InboxView, number>;
}

/**
 * Conversations of one inbox view by last activity (or longest waiting first), with
 * the last message and the unread count (inbound messages since an operator last opened it).
 */
export async function listConversations(db: Database, options: ConversationListOptions) {
  const search = options.search?.trim();
  const conversations = await db.prisma.conversation.findMany({
    where: {
      AND: [
        inboxViewWhere(options.view ?? "all", options.me ?? 0),
        options.botId ? { botId: options.botId } : {},
        search
          ? {
              OR: [
                { title: { contains: search } },
                { platformChatId: { contains: search } },
                { messages: { some: { senderName: { contains: search } } } },
              ],
            }
          : {},
      ],
    },
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
        select: { text: true, senderName: true, senderKind: true, sentAt: true },
      },
    },
  });
  const unread = await Promise.all(
    conversations.map((c) =>
      db.prisma.message.count({
        where: { conversationId: c.id, direction: "inbound", ...(c.lastReadAt ? { createdAt: { gt: c.lastReadAt } } : {}) },
      }),
    ),
  );
  return conversations.map(({ messages, ...c }, i) => ({ ...c, lastMessage: messages[0] ?? null, unread: unread[i] }));
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
export async function markMembership(db: Database, id: number, membership: string, at: Date) {
  const conversation = await db.prisma.conversation.findUnique({
    where: { id },
    select: { channel: true, platformChatId: true, parentConversationId: true },
  });
  if (!conversation) return;
  const { chatId } = splitTopicChatId(conversation.platformChatId);
  await db.prisma.conversation.updateMany({
    where: {
      channel: conversation.channel,
      OR: [{ platformChatId: chatId }, { platformChatId: { startsWith: topicKeysLike(chatId).slice(0, -1) } }],
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

import { splitTopicChatId, topicKeysLike } from "../envelope/topic-key";
import type { Database } from "./database";

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

export type ConversationListOptions = { search?: string; take: number };

/**
 * Conversations by last activity, with the last message and the unread count
 * (inbound messages since an operator last opened it).
 */
export async function listConversations(db: Database, options: ConversationListOptions) {
  const search = options.search?.trim();
  const conversations = await db.prisma.conversation.findMany({
    where: search
      ? {
          OR: [
            { title: { contains: search } },
            { platformChatId: { contains: search } },
            { messages: { some: { senderName: { contains: search } } } },
          ],
        }
      : undefined,
    orderBy: [{ lastMessageAt: { sort: "desc", nulls: "last" } }, { id: "desc" }],
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

import type { Database } from "./database";

/**
 * The person a conversation is with, as the contact panel shows them: in a private
 * chat the user; in a group, whoever of its users wrote last. Null before any
 * user wrote. Everything comes from their stored messages (no profile lookups).
 */
export async function readContact(db: Database, conversationId: number) {
  const conversation = await db.prisma.conversation.findUnique({ where: { id: conversationId }, select: { id: true, channel: true } });
  if (!conversation) return undefined;
  const latest = await db.prisma.message.findFirst({
    where: { conversationId, direction: "inbound", senderKind: "user", senderIsBot: false, senderPlatformId: { not: null } },
    orderBy: [{ sentAt: "desc" }, { id: "desc" }],
    select: { senderPlatformId: true, senderName: true, senderUsername: true },
  });
  if (!latest?.senderPlatformId) return null;
  const person = { senderPlatformId: latest.senderPlatformId, senderKind: "user", conversation: { channel: conversation.channel } };
  const [language, seen] = await Promise.all([
    db.prisma.message.findFirst({
      where: { ...person, senderLanguage: { not: null } },
      orderBy: [{ sentAt: "desc" }, { id: "desc" }],
      select: { senderLanguage: true },
    }),
    db.prisma.message.groupBy({
      by: ["conversationId"],
      where: person,
      _min: { sentAt: true },
      _max: { sentAt: true },
      _count: { _all: true },
    }),
  ]);
  const conversations = await db.prisma.conversation.findMany({
    where: { id: { in: seen.map((s) => s.conversationId).filter((id) => id !== conversationId) } },
    select: { id: true, title: true, type: true, platformChatId: true, topicName: true, status: true, lastMessageAt: true },
    orderBy: [{ lastMessageAt: { sort: "desc", nulls: "last" } }, { id: "desc" }],
    take: 50,
  });
  const counts = new Map(seen.map((s) => [s.conversationId, s._count._all]));
  const times = seen.flatMap((s) => [s._min.sentAt, s._max.sentAt]).filter((t): t is Date => t !== null);
  return {
    name: latest.senderName,
    username: latest.senderUsername,
    channel: conversation.channel,
    platformUserId: latest.senderPlatformId,
    language: language?.senderLanguage ?? null,
    firstSeen: times.length ? new Date(Math.min(...times.map((t) => t.getTime()))) : null,
    lastSeen: times.length ? new Date(Math.max(...times.map((t) => t.getTime()))) : null,
    otherConversations: conversations.map((c) => ({ ...c, messages: counts.get(c.id) ?? 0 })),
  };
}

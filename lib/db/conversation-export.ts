import type { Database } from "./database";

/** At most this many messages and envelopes per export: a bounded response even for a huge chat. */
export const EXPORT_LIMIT = 50_000;

/**
 * Everything of one conversation, oldest first: its messages, notes and envelopes, the
 * conversation with its label names. Undefined when there is no such conversation.
 */
export async function readConversationExport(db: Database, conversationId: number) {
  const row = await db.prisma.conversation.findUnique({
    where: { id: conversationId },
    include: { labels: { select: { label: { select: { name: true } } }, orderBy: { label: { nameKey: "asc" } } } },
  });
  if (!row) return undefined;
  const conversation = { ...row, labels: row.labels.map((l) => l.label.name) };
  const [messages, notes, envelopes] = await Promise.all([
    db.prisma.message.findMany({
      where: { conversationId },
      orderBy: [{ sentAt: "asc" }, { id: "asc" }],
      take: EXPORT_LIMIT,
      select: {
        id: true,
        direction: true,
        senderKind: true,
        senderName: true,
        senderUsername: true,
        senderPlatformId: true,
        text: true,
        replyToMessageId: true,
        forkId: true,
        sentAt: true,
        editedAt: true,
        deletedAt: true,
        deletedBy: true,
      },
    }),
    db.prisma.conversationNote.findMany({ where: { conversationId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
    db.prisma.envelope.findMany({
      where: { conversationId },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: EXPORT_LIMIT,
      select: {
        id: true,
        from: true,
        to: true,
        status: true,
        text: true,
        messageId: true,
        replyToEnvelopeId: true,
        metadata: true,
        lastDeliveryError: true,
        createdAt: true,
        doneAt: true,
      },
    }),
  ]);
  return { conversation, messages, notes, envelopes };
}

export type ConversationExport = NonNullable<Awaited<ReturnType<typeof readConversationExport>>>;

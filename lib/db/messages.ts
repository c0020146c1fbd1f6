import type { Db } from "./client";
import { joinThread } from "./ingest";

export class GenerationConflict extends Error {
  constructor() {
    super("conversation history changed concurrently");
  }
}

export type OutboundMessageInput = {
  conversationId: number;
  senderKind: "agent" | "operator";
  senderName: string;
  text: string;
  platformMessageId: string;
  sentAt: Date;
  /** The stored message this answers (its thread is joined). */
  replyTo: { id: number; threadId: number | null; platformMessageId: string | null } | null;
  forkId: number | null;
  platformTopicId?: string | null;
  /** The history generation the writer read; a different one means a concurrent write. */
  expectedGeneration: number;
};

/**
 * Appends an outbound message if the conversation's history is still at the
 * generation the writer read (optimistic concurrency), bumping it. Throws
 * GenerationConflict otherwise, so the caller re-reads and retries.
 */
export function appendOutboundMessage(db: Db, input: OutboundMessageInput) {
  return db.$transaction(async (tx) => {
    const bumped = await tx.conversation.updateMany({
      where: { id: input.conversationId, generation: input.expectedGeneration },
      data: { generation: { increment: 1 }, lastMessageAt: input.sentAt },
    });
    if (bumped.count !== 1) throw new GenerationConflict();
    const threadId = input.replyTo ? await joinThread(tx, input.conversationId, input.replyTo, input.sentAt) : null;
    return tx.message.create({
      data: {
        conversationId: input.conversationId,
        direction: "outbound",
        senderKind: input.senderKind,
        senderName: input.senderName,
        senderIsBot: true,
        text: input.text,
        platformMessageId: input.platformMessageId,
        platformTopicId: input.platformTopicId ?? null,
        replyToMessageId: input.replyTo?.id ?? null,
        replyToPlatformId: input.replyTo?.platformMessageId ?? null,
        threadId,
        forkId: input.forkId,
        sentAt: input.sentAt,
      },
    });
  });
}

export async function readGeneration(db: Db, conversationId: number): Promise<number> {
  const row = await db.conversation.findUnique({ where: { id: conversationId }, select: { generation: true } });
  return row?.generation ?? 0;
}

export function findMessage(db: Db, id: number) {
  return db.message.findUnique({ where: { id }, include: { conversation: true } });
}

/** A page of a conversation's timeline, newest first (the dashboard reverses it). */
export function listConversationMessages(db: Db, conversationId: number, options: { beforeId?: number; take: number }) {
  return db.message.findMany({
    where: { conversationId, ...(options.beforeId ? { id: { lt: options.beforeId } } : {}) },
    orderBy: [{ id: "desc" }],
    take: options.take,
    include: { envelopes: { select: { id: true, status: true, lastDeliveryError: true, from: true }, orderBy: { id: "asc" } } },
  });
}

/**
 * The reply tree around a message: every member of its materialized thread in
 * one indexed query (threadId), or the message alone when nobody replied.
 */
export async function messageThread(db: Db, messageId: number) {
  const message = await db.message.findUnique({ where: { id: messageId }, select: { id: true, threadId: true } });
  if (!message) return null;
  const where = message.threadId ? { threadId: message.threadId } : { id: message.id };
  const members = await db.message.findMany({
    where,
    orderBy: [{ sentAt: "asc" }, { id: "asc" }],
    select: {
      id: true,
      conversationId: true,
      direction: true,
      senderKind: true,
      senderName: true,
      text: true,
      sentAt: true,
      replyToMessageId: true,
      forkId: true,
      threadId: true,
      envelopes: { select: { id: true, status: true, lastDeliveryError: true, turn: { select: { id: true } } } },
    },
  });
  return { messageId, threadId: message.threadId, members };
}

import type { Database } from "./database";
import { joinThread } from "./ingest";
import type { Conversation, Message } from "./generated/sqlite/client";
import { prismaRow } from "./sql";
import { readEnvelopeMetadata } from "../envelope/metadata";

/** An envelope as the timeline shows it: its failure's `outcome` ("unknown" = possibly delivered) read from the metadata, not from the text. */
function envelopeBrief<T extends { metadata: unknown }>({ metadata, ...envelope }: T) {
  return { ...envelope, outcome: readEnvelopeMetadata(metadata).outcome ?? null };
}

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
  /** null: a send whose outcome is unknown, kept in the history as possibly delivered. */
  platformMessageId: string | null;
  sentAt: Date;
  /** The stored message this answers (its thread is joined). */
  replyTo: { id: number; threadId: number | null; platformMessageId: string | null } | null;
  forkId: number | null;
  platformTopicId?: string | null;
  /**
   * The history generation the writer read; a different one means a concurrent
   * write (GenerationConflict). null appends whatever the generation is.
   */
  expectedGeneration: number | null;
};

/**
 * Appends an outbound message if the conversation's history is still at the
 * generation the writer read (optimistic concurrency), bumping it. Throws
 * GenerationConflict otherwise, so the caller re-reads and retries.
 */
export function appendOutboundMessage(db: Database, input: OutboundMessageInput): Promise<{ id: number }> {
  return db.transaction(async (sql) => {
    const bumped = await sql.run(
      `UPDATE "Conversation" SET "generation" = "generation" + 1, "lastMessageAt" = ?, "updatedAt" = ? WHERE "id" = ? AND (? OR "generation" = ?)`,
      input.sentAt, new Date(), input.conversationId, input.expectedGeneration === null, input.expectedGeneration ?? -1,
    );
    if (bumped !== 1) throw new GenerationConflict();
    const threadId = input.replyTo ? await joinThread(sql, input.conversationId, input.replyTo, input.sentAt) : null;
    return (await sql.one<{ id: number }>(
      `INSERT INTO "Message" ("conversationId", "direction", "senderKind", "senderName", "senderIsBot", "text", "platformMessageId",
         "platformTopicId", "replyToMessageId", "replyToPlatformId", "threadId", "forkId", "sentAt", "createdAt")
       VALUES (?, 'outbound', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING "id"`,
      input.conversationId, input.senderKind, input.senderName, true, input.text, input.platformMessageId,
      input.platformTopicId ?? null, input.replyTo?.id ?? null, input.replyTo?.platformMessageId ?? null, threadId, input.forkId, input.sentAt, new Date(),
    ))!;
  });
}

export async function readGeneration(db: Database, conversationId: number): Promise<number> {
  const [row] = await db.read<{ generation: number }>(`SELECT "generation" FROM "Conversation" WHERE "id" = ?`, conversationId);
  return Number(row?.generation ?? 0);
}

const messageColumns = { dates: ["sentAt", "editedAt", "deletedAt", "createdAt"], booleans: ["senderIsBot", "replyToSenderIsBot", "mentionsBot"] };
const conversationColumns = { dates: ["lastMessageAt", "lastReadAt", "membershipChangedAt", "servedAt", "createdAt", "updatedAt"], booleans: ["agentEnabled"] };

/** A message with its conversation, as Prisma's `include` returns it; on the hand-written path (every turn reads it). */
export async function findMessage(db: Database, id: number): Promise<(Message & { conversation: Conversation }) | null> {
  const [row] = await db.read<Record<string, unknown>>(`SELECT * FROM "Message" WHERE "id" = ?`, id);
  if (!row) return null;
  const [conversation] = await db.read<Record<string, unknown>>(`SELECT * FROM "Conversation" WHERE "id" = ?`, row.conversationId as number);
  if (!conversation) return null;
  return { ...prismaRow<Message>(row, messageColumns), conversation: prismaRow<Conversation>(conversation, conversationColumns) };
}

/** A page of a conversation's timeline, newest first (the dashboard reverses it). */
export async function listConversationMessages(db: Database, conversationId: number, options: { beforeId?: number; take: number }) {
  const messages = await db.prisma.message.findMany({
    where: { conversationId, ...(options.beforeId ? { id: { lt: options.beforeId } } : {}) },
    orderBy: [{ id: "desc" }],
    take: options.take,
    include: {
      envelopes: { select: { id: true, status: true, lastDeliveryError: true, from: true, metadata: true }, orderBy: { id: "asc" } },
      // An edited message shows its earlier texts too.
      revisions: { select: { text: true, replacedAt: true }, orderBy: { id: "asc" } },
    },
  });
  return messages.map((m) => ({ ...m, envelopes: m.envelopes.map(envelopeBrief) }));
}

/**
 * The reply tree around a message: every member of its materialized thread in
 * one indexed query (threadId), or the message alone when nobody replied.
 */
export async function messageThread(db: Database, messageId: number) {
  const message = await db.prisma.message.findUnique({ where: { id: messageId }, select: { id: true, threadId: true } });
  if (!message) return null;
  const where = message.threadId ? { threadId: message.threadId } : { id: message.id };
  const members = await db.prisma.message.findMany({
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
      envelopes: { select: { id: true, status: true, lastDeliveryError: true, metadata: true, turn: { select: { id: true } } } },
    },
  });
  return { messageId, threadId: message.threadId, members: members.map((m) => ({ ...m, envelopes: m.envelopes.map(envelopeBrief) })) };
}

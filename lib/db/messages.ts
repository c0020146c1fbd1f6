import type { Database } from "./database";
import { joinThread } from "./ingest";
import type { Conversation, Message } from "./generated/sqlite/client";
import { prismaRow, prismaRowFromJson } from "./sql";
import { type EnvelopeMetadata, readEnvelopeMetadata } from "./envelope-metadata";
import { finishStatement } from "./envelopes";

/** An envelope as the timeline shows it: its failure's `outcome` ("unknown" = possibly delivered) read from the metadata, not from the text. */
function envelopeBrief<T extends { metadata: unknown }>({ metadata, ...envelope }: T) {
  return { ...envelope, outcome: readEnvelopeMetadata(metadata).outcome ?? null };
}

export type OutboundMessageInput = {
  conversationId: number;
  senderKind: "agent" | "operator";
  senderName: string;
  text: string;
  /** null: a send whose outcome is unknown, kept in the history as possibly delivered. */
  platformMessageId: string | null;
  sentAt: Date;
  /** The stored message this answers: its thread, as stored when the message is written, is joined (`threadId` here is not trusted). */
  replyTo: { id: number; threadId: number | null; platformMessageId: string | null } | null;
  forkId: number | null;
  platformTopicId?: string | null;
  /** An automatic notice (the handoff's "a person will reply"): not an answer, so the user's wait goes on. */
  keepsWaiting?: boolean;
  /** An operator's file sent with it: recorded as its attachment (source "upload", stored) in the same transaction. */
  attachment?: OutboundAttachment;
};

/** A file that went out with an outbound message, already in the blob store. */
export type OutboundAttachment = {
  kind: string;
  mimeType: string;
  fileName: string;
  sizeBytes: number;
  width: number | null;
  height: number | null;
  durationSeconds: number | null;
  blobSha256: string;
};

/**
 * Appends an outbound message (joining its reply target's thread) and bumps the
 * conversation's activity and history generation, in one transaction.
 */
export function appendOutboundMessage(db: Database, input: OutboundMessageInput, ends?: EndedSend): Promise<{ id: number }> {
  if (db.dialect === "postgresql" && !input.attachment) return appendOutboundInOneStatement(db, input, ends);
  return db.transaction(async (sql) => {
    await sql.run(
      `UPDATE "Conversation" SET "generation" = "generation" + 1, "lastMessageAt" = ?,
         "waitingSince" = ${input.keepsWaiting ? `"waitingSince"` : "NULL"}, "updatedAt" = ? WHERE "id" = ?`,
      input.sentAt,
      new Date(),
      input.conversationId,
    );
    // The target's thread as stored now: a reply to it may have created one since the caller read it.
    const target =
      input.replyTo &&
      (await sql.one<{ id: number; threadId: number | null }>(`SELECT "id", "threadId" FROM "Message" WHERE "id" = ?`, input.replyTo.id));
    const threadId = target ? await joinThread(sql, input.conversationId, target, input.sentAt) : null;
    const message = (await sql.one<{ id: number }>(
      `INSERT INTO "Message" ${OUTBOUND_COLUMNS} VALUES (?, 'outbound', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING "id"`,
      ...outboundValues(input, threadId, new Date()),
    ))!;
    const file = input.attachment;
    if (file) {
      const now = new Date();
      await sql.run(
        `INSERT INTO "Attachment" ("messageId", "position", "kind", "mimeType", "fileName", "sizeBytes", "width", "height", "durationSeconds",
           "status", "source", "blobSha256", "attempts", "createdAt", "updatedAt")
         VALUES (?, 0, ?, ?, ?, ?, ?, ?, ?, 'stored', 'upload', ?, 0, ?, ?)`,
        message.id,
        file.kind,
        file.mimeType,
        file.fileName,
        file.sizeBytes,
        file.width,
        file.height,
        file.durationSeconds,
        file.blobSha256,
        now,
        now,
      );
    }
    if (ends) await sql.run(...finishStatement(sql, ends.envelopeId, { status: "done", messageId: message.id, metadata: ends.metadata }));
    return message;
  });
}

const OUTBOUND_COLUMNS = `("conversationId", "direction", "senderKind", "senderName", "senderIsBot", "text", "platformMessageId",
  "platformTopicId", "replyToMessageId", "replyToPlatformId", "threadId", "forkId", "sentAt", "createdAt")`;

/** The values of `OUTBOUND_COLUMNS` but the direction (a literal). */
function outboundValues(input: OutboundMessageInput, threadId: number | null, now: Date) {
  return [
    input.conversationId,
    input.senderKind,
    input.senderName,
    true,
    input.text,
    input.platformMessageId,
    input.platformTopicId ?? null,
    input.replyTo?.id ?? null,
    input.replyTo?.platformMessageId ?? null,
    threadId,
    input.forkId,
    input.sentAt,
    now,
  ];
}

/**
 * The send's own envelope, ended done with the message it delivered in the same
 * write (callers then tell open pages: lib/pipeline/end-envelope.ts).
 */
export type EndedSend = { envelopeId: number; metadata: EnvelopeMetadata };

/**
 * The same writes as one PostgreSQL statement (data-modifying CTEs, atomic like a
 * transaction): every agent answer runs this, and the transaction's BEGIN, COMMIT and
 * five statements were seven round trips, each costing the server more CPU than the
 * statement costs PostgreSQL. The thread is joined as `joinThread` does, from the
 * target as stored now (a reply to it may have created its thread since the caller
 * read it): bumped when the target has one, else created at the target and the
 * target put in it (a thread created meanwhile by a reply still being written leaves
 * this message outside it, never the answer unrecorded).
 *
 * The conversation's UPDATE is the main statement so that its row is locked first,
 * as ingest and the transaction above lock it: PostgreSQL runs the CTEs the main
 * statement reads when it reads them (here, in RETURNING, after the row is locked)
 * and the others after it. With the conversation last, an answer joining a thread
 * and a webhook replying into the same thread locked in opposite orders: a deadlock.
 */
async function appendOutboundInOneStatement(db: Database, input: OutboundMessageInput, ends?: EndedSend): Promise<{ id: number }> {
  const target = input.replyTo?.id ?? null;
  const [row] = await db.write<{ id: number }>(() => {
    const now = new Date();
    const [end, ...endParams] = ends
      ? finishStatement(db, ends.envelopeId, { status: "done", metadata: ends.metadata }, `(SELECT "id" FROM "message")`)
      : [];
    return [
      `WITH "joined" AS (
       SELECT "threadId" AS "id" FROM "Message" WHERE "id" = CAST(? AS INTEGER)
     ), "created" AS (
       INSERT INTO "Thread" ("conversationId", "rootMessageId", "messageCount", "lastMessageAt", "createdAt")
       SELECT ?, CAST(? AS INTEGER), 2, ?, ? WHERE EXISTS (SELECT 1 FROM "joined" WHERE "id" IS NULL)
       ON CONFLICT ("rootMessageId") DO NOTHING RETURNING "id"
     ), "bumped" AS (
       UPDATE "Thread" SET "messageCount" = "messageCount" + 1, "lastMessageAt" = ? WHERE "id" = (SELECT "id" FROM "joined")
     ), "rooted" AS (
       UPDATE "Message" SET "threadId" = (SELECT "id" FROM "created") WHERE "id" = CAST(? AS INTEGER) AND EXISTS (SELECT 1 FROM "created")
     ), "message" AS (
       INSERT INTO "Message" ${OUTBOUND_COLUMNS}
       VALUES (?, 'outbound', ?, ?, ?, ?, ?, ?, ?, ?, COALESCE(CAST(? AS INTEGER), (SELECT "id" FROM "joined"), (SELECT "id" FROM "created")), ?, ?, ?) RETURNING "id"
     )${end ? `, "ended" AS (${end})` : ""}
     UPDATE "Conversation" SET "generation" = "generation" + 1, "lastMessageAt" = ?,
       "waitingSince" = ${input.keepsWaiting ? `"waitingSince"` : "NULL"}, "updatedAt" = ? WHERE "id" = ?
     RETURNING (SELECT "id" FROM "message") AS "id"`,
      target,
      input.conversationId,
      target,
      input.sentAt,
      now,
      input.sentAt,
      target,
      // The thread parameter is NULL: the thread is the one joined or created above.
      ...outboundValues(input, null, now),
      ...endParams,
      input.sentAt,
      now,
      input.conversationId,
    ];
  });
  return row!;
}

/**
 * A note the system writes into a conversation's main history (a fork's report):
 * a new message like any other, so it bumps the history generation too.
 */
export function appendSystemNote(
  db: Database,
  input: { conversationId: number; senderName: string; text: string; sentAt: Date },
): Promise<{ id: number }> {
  return db.transaction(async (sql) => {
    await sql.run(`UPDATE "Conversation" SET "generation" = "generation" + 1 WHERE "id" = ?`, input.conversationId);
    return (await sql.one<{ id: number }>(
      `INSERT INTO "Message" ("conversationId", "direction", "senderKind", "senderName", "senderIsBot", "text", "mentionsBot", "sentAt", "createdAt")
       VALUES (?, 'outbound', 'system', ?, ?, ?, ?, ?, ?) RETURNING "id"`,
      input.conversationId,
      input.senderName,
      false,
      input.text,
      false,
      input.sentAt,
      new Date(),
    ))!;
  });
}

/**
 * The message an earlier attempt of an envelope kept as possibly delivered (an
 * outbound message without a platform id), or null.
 */
export async function keptMessageOfEnvelope(db: Database, envelopeId: number) {
  const envelope = await db.prisma.envelope.findUnique({ where: { id: envelopeId }, select: { messageId: true } });
  if (!envelope?.messageId) return null;
  return db.prisma.message.findFirst({
    where: { id: envelope.messageId, direction: "outbound", platformMessageId: null },
    select: { id: true },
  });
}

/** A message kept as possibly delivered turned out delivered: it gets its platform id. */
export function confirmKeptMessage(db: Database, id: number, platformMessageId: string) {
  return db.prisma.message.update({ where: { id }, data: { platformMessageId } });
}

/** What a native reply to a stored message needs (its thread, platform ids, conversation). */
export function findReplyTarget(db: Database, id: number) {
  return db.prisma.message.findUnique({
    where: { id },
    select: { id: true, conversationId: true, threadId: true, platformMessageId: true, platformTopicId: true, forkId: true },
  });
}

const messageColumns = {
  dates: ["sentAt", "editedAt", "deletedAt", "createdAt"],
  booleans: ["senderIsBot", "replyToSenderIsBot", "mentionsBot"],
  json: ["shared"],
};
const conversationColumns = {
  dates: [
    "lastMessageAt",
    "lastReadAt",
    "membershipChangedAt",
    "servedAt",
    "createdAt",
    "updatedAt",
    "handoffRequestedAt",
    "handoffAssignedAt",
    "handoffTimedOutAt",
    "lastHandoffFrom",
    "lastHandoffUntil",
    "snoozedUntil",
    "statusChangedAt",
    "waitingSince",
  ],
  booleans: ["agentEnabled"],
};

export type MessageWithConversation = Message & { conversation: Conversation };

/** A message and its conversation read as PostgreSQL JSON (lib/db/turn-start.ts `findEnvelopeWithMessage`). */
export function messageFromJson(message: Record<string, unknown>, conversation: Record<string, unknown>): MessageWithConversation {
  return {
    ...prismaRowFromJson<Message>(message, messageColumns),
    conversation: prismaRowFromJson<Conversation>(conversation, conversationColumns),
  };
}

/** A message with its conversation, as Prisma's `include` returns it; on the hand-written path (every turn reads it). */
export async function findMessage(db: Database, id: number): Promise<MessageWithConversation | null> {
  const [row] = await db.read<Record<string, unknown>>(`SELECT * FROM "Message" WHERE "id" = ?`, id);
  if (!row) return null;
  const [conversation] = await db.read<Record<string, unknown>>(
    `SELECT * FROM "Conversation" WHERE "id" = ?`,
    row.conversationId as number,
  );
  if (!conversation) return null;
  return {
    ...prismaRow<Message>(row, messageColumns, db.dialect),
    conversation: prismaRow<Conversation>(conversation, conversationColumns, db.dialect),
  };
}

/** A page of a conversation's timeline, newest first (the dashboard reverses it). */
export async function listConversationMessages(db: Database, conversationId: number, options: { beforeId?: number; take: number }) {
  const messages = await db.prisma.message.findMany({
    where: { conversationId, ...(options.beforeId ? { id: { lt: options.beforeId } } : {}) },
    orderBy: [{ id: "desc" }],
    take: options.take,
    include: {
      envelopes: {
        select: {
          id: true,
          status: true,
          lastDeliveryError: true,
          from: true,
          metadata: true,
          // The agent turn behind it (as findTurnForMessage): the timeline links its prompt only when there is one.
          turn: { select: { id: true } },
          replyTo: { select: { turn: { select: { id: true } } } },
        },
        orderBy: { id: "asc" },
      },
      // An edited message shows its earlier texts too.
      revisions: { select: { text: true, replacedAt: true, editedBy: true }, orderBy: { id: "asc" } },
    },
  });
  return messages.map(({ envelopes, ...m }) => ({
    ...m,
    turnId: envelopes.find((e) => e.turn)?.turn?.id ?? envelopes.find((e) => e.replyTo?.turn)?.replyTo?.turn?.id ?? null,
    envelopes: envelopes.map(({ turn: _turn, replyTo: _replyTo, ...e }) => envelopeBrief(e)),
  }));
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

import { readEnvelopeMetadata, type EnvelopeMetadata } from "./envelope-metadata";
import { type BotScope, ofConversationScopeWhere } from "./conversation-scope";
import type { Database } from "./database";
import { isUniqueViolation } from "./errors";
import type { Envelope } from "./generated/sqlite/client";
import { inJsonList, jsonList, prismaRow, type SqlRunner, type SqlValue } from "./sql";

export type EnvelopeStatus = "pending" | "processing" | "done" | "failed";

export type NewEnvelope = {
  from: string;
  to: string;
  text: string;
  status?: EnvelopeStatus;
  deliverAt?: Date | null;
  replyToEnvelopeId?: number | null;
  conversationId?: number | null;
  messageId?: number | null;
  forkId?: number | null;
  metadata?: EnvelopeMetadata;
  dedupeKey?: string | null;
};

/** Creates an envelope; a reply joins its parent's materialized thread. */
export async function createEnvelope(db: Database, input: NewEnvelope) {
  const parent = input.replyToEnvelopeId
    ? await db.prisma.envelope.findUnique({ where: { id: input.replyToEnvelopeId }, select: { id: true, threadRootId: true } })
    : null;
  return db.prisma.envelope.create({
    data: {
      ...input,
      threadRootId: parent ? (parent.threadRootId ?? parent.id) : null,
      status: input.status ?? "pending",
      metadata: (input.metadata ?? {}) as never,
    },
  });
}

/** Creates the envelope unless one with the same dedupe key exists (then null): at-most-once. */
export async function createEnvelopeOnce(db: Database, input: NewEnvelope & { dedupeKey: string }) {
  try {
    return await createEnvelope(db, input);
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/**
 * createEnvelope / createEnvelopeOnce for every answer's outbound envelope, on the
 * hand-written path (one statement: the parent's thread root is read by the
 * insert), returning only the id. Null when the dedupe key is taken (at-most-once).
 */
export async function insertEnvelope(db: Database, input: NewEnvelope): Promise<{ id: number } | null> {
  const parent = input.replyToEnvelopeId ?? null;
  try {
    const [row] = await db.write<{ id: number }>(() => {
      const now = new Date();
      return [
        `INSERT INTO "Envelope" ("from", "to", "status", "text", "deliverAt", "replyToEnvelopeId", "threadRootId", "conversationId", "messageId", "forkId",
         "metadata", "dedupeKey", "createdAt", "updatedAt")
       VALUES (?, ?, ?, ?, ?, ?, (SELECT COALESCE("threadRootId", "id") FROM "Envelope" WHERE "id" = ?),
         ?, ?, ?, ?, ?, ?, ?) RETURNING "id"`,
        input.from,
        input.to,
        input.status ?? "pending",
        input.text,
        input.deliverAt ?? null,
        parent,
        parent,
        input.conversationId ?? null,
        input.messageId ?? null,
        input.forkId ?? null,
        input.metadata ?? {},
        input.dedupeKey ?? null,
        now,
        now,
      ];
    });
    return row!;
  } catch (error) {
    if (input.dedupeKey && isUniqueViolation(error)) return null;
    throw error;
  }
}

/** An envelope read by the pipeline: its metadata parsed (tolerant of older rows). */
export type StoredEnvelope = Omit<Envelope, "metadata"> & { metadata: EnvelopeMetadata };

export function withMetadata<T extends { metadata: unknown }>(row: T): Omit<T, "metadata"> & { metadata: EnvelopeMetadata } {
  return { ...row, metadata: readEnvelopeMetadata(row.metadata) };
}

export async function findEnvelopeByDedupeKey(db: Database, dedupeKey: string): Promise<StoredEnvelope | null> {
  const row = await db.prisma.envelope.findUnique({ where: { dedupeKey } });
  return row ? withMetadata(row) : null;
}

/** Takes a refused send back for another attempt (only while it is still failed: one taker wins). */
export async function reclaimRefusedSend(db: Database, id: number, text: string) {
  const { count } = await db.prisma.envelope.updateMany({
    where: { id, status: "failed" },
    data: { status: "processing", text, lastDeliveryError: null, doneAt: null },
  });
  return count === 1;
}

/** A failed envelope back to pending, from scratch (an operator's retry); false if it was not failed. */
export async function requeueFailedEnvelope(db: Database, id: number) {
  const { count } = await db.prisma.envelope.updateMany({
    where: { id, status: "failed" },
    data: { status: "pending", attempts: 0, deliverAt: null, doneAt: null, claimedBy: null, leaseUntil: null, lastDeliveryError: null },
  });
  return count === 1;
}

/** Frees a turn's reply key held by failed sends, so a retried turn may answer (the failed envelopes stay as the record). */
export function releaseReplyKey(db: Database, inboundEnvelopeId: number) {
  return db.prisma.envelope.updateMany({ where: { dedupeKey: `reply:${inboundEnvelopeId}`, status: "failed" }, data: { dedupeKey: null } });
}

/** Which of these inbound envelopes the agent already answered (their `reply:<id>` send exists). */
export async function repliedEnvelopeIds(db: Database, ids: number[]): Promise<number[]> {
  const rows = await db.prisma.envelope.findMany({
    where: { dedupeKey: { in: ids.map((id) => `reply:${id}`) } },
    select: { dedupeKey: true },
  });
  return rows.map((r) => Number(r.dedupeKey!.slice("reply:".length)));
}

export const envelopeColumns = { dates: ["deliverAt", "leaseUntil", "createdAt", "updatedAt", "doneAt"], json: ["metadata"] };

/** One envelope as Prisma returns it, read on the hand-written path. */
export async function findEnvelope(db: Database, id: number): Promise<StoredEnvelope | null> {
  const [row] = await db.read<Record<string, unknown>>(`SELECT * FROM "Envelope" WHERE "id" = ?`, id);
  return row ? withMetadata(prismaRow<Envelope>(row, envelopeColumns, db.dialect)) : null;
}

/**
 * Ends an envelope (or all envelopes of a burst, answered by one turn): done, or
 * failed with the error the operator will see (the `lastDeliveryError` column).
 * The metadata keys given are set on top of the stored ones. Callers in the
 * pipeline go through lib/pipeline/end-envelope.ts, which tells open pages.
 */
export async function finishEnvelope(db: Database, id: number | number[], outcome: EnvelopeOutcome) {
  // One statement on every turn's path: the metadata is merged in SQL, not read first.
  await db.write(() => finishStatement(db, id, outcome));
}

export type EnvelopeOutcome = { status: "done" | "failed"; error?: string; messageId?: number; metadata?: EnvelopeMetadata };

/**
 * `finishEnvelope`'s statement, for writes that end an envelope together with
 * others (lib/db/messages.ts). `messageId`: SQL for the message's id where it is
 * not a value yet (a CTE's), else the outcome's.
 */
export function finishStatement(sql: Pick<SqlRunner, "dialect">, id: number | number[], outcome: EnvelopeOutcome, messageId?: string) {
  const now = new Date();
  const params: SqlValue[] = [outcome.status, outcome.error ?? null];
  if (!messageId) params.push(outcome.messageId ?? null);
  params.push(outcome.metadata ?? {}, now, now, jsonList(Array.isArray(id) ? id : [id]));
  return [
    `UPDATE "Envelope" SET "status" = ?, "lastDeliveryError" = COALESCE(?, "lastDeliveryError"), "messageId" = COALESCE(${messageId ?? "?"}, "messageId"),
       "metadata" = ${mergeJson(sql)}, "doneAt" = ?, "claimedBy" = NULL, "leaseUntil" = NULL, "updatedAt" = ? WHERE ${inJsonList(sql, `"id"`)}`,
    ...params,
  ] as const;
}

/** `"metadata"` with the keys of a JSON object parameter set on top, like a spread (callers patch scalar values: json_patch would merge nested objects). */
function mergeJson(sql: Pick<SqlRunner, "dialect">) {
  return sql.dialect === "sqlite" ? `json_patch("metadata", ?)` : `"metadata" || CAST(? AS jsonb)`;
}

/** Puts a claimed envelope back for a later attempt (model error, timeout). */
export async function retryEnvelopeLater(db: Database, id: number, at: Date, error: string) {
  await db.write(() => [
    `UPDATE "Envelope" SET "status" = 'pending', "deliverAt" = ?, "lastDeliveryError" = ?,
       "claimedBy" = NULL, "leaseUntil" = NULL, "updatedAt" = ? WHERE "id" = ?`,
    at,
    error,
    new Date(),
    id,
  ]);
}

export type EnvelopeFilter = {
  to?: string;
  from?: string;
  /** Matches either address (dashboard search). */
  address?: string;
  status?: EnvelopeStatus;
  conversationId?: number;
  /** Only envelopes scheduled for later (deliverAt in the future). */
  scheduled?: boolean;
  beforeId?: number;
  take: number;
  /** The caller's bots (lib/auth/bot-scope.ts): their conversations' envelopes and those of none; null / absent: every bot. */
  bots?: BotScope;
};

export function listEnvelopes(db: Database, filter: EnvelopeFilter, now: Date) {
  return db.prisma.envelope.findMany({
    where: {
      ...(filter.to ? { to: filter.to } : {}),
      ...(filter.from ? { from: filter.from } : {}),
      ...(filter.address ? { OR: [{ to: { contains: filter.address } }, { from: { contains: filter.address } }] } : {}),
      ...(filter.status ? { status: filter.status } : {}),
      ...(filter.conversationId ? { conversationId: filter.conversationId } : {}),
      ...(filter.scheduled ? { deliverAt: { gt: now } } : {}),
      ...(filter.beforeId ? { id: { lt: filter.beforeId } } : {}),
      AND: [ofConversationScopeWhere(filter.bots)],
    },
    orderBy: { id: "desc" },
    take: filter.take,
    include: { turn: { select: { id: true } } },
  });
}

/**
 * Hands an agent its due pending mail and marks each one done, one conditional
 * update per envelope, so two concurrent readers never both receive the same one.
 */
export async function takeAgentMail(db: Database, to: string, now: Date, take: number, bots?: BotScope) {
  const due = await db.prisma.envelope.findMany({
    // A reader's mail only: a user's message or a background task to the same address is the worker's turn
    // (lib/envelope/work-kinds.ts); taken here it would be marked done and never answered.
    where: {
      to,
      status: "pending",
      messageId: null,
      forkId: null,
      OR: [{ deliverAt: null }, { deliverAt: { lte: now } }],
      AND: [ofConversationScopeWhere(bots)],
    },
    orderBy: { id: "asc" },
    take,
  });
  const taken = [];
  for (const envelope of due) {
    const { count } = await db.prisma.envelope.updateMany({
      where: { id: envelope.id, status: "pending" },
      data: { status: "done", doneAt: now },
    });
    if (count === 1) taken.push({ ...envelope, status: "done", doneAt: now });
  }
  return taken;
}

export function findEnvelopeWithTurn(db: Database, id: number) {
  return db.prisma.envelope.findUnique({ where: { id }, include: { turn: { select: { id: true } } } });
}

/**
 * Sends that started (outbound envelope written, status processing, not held by
 * a worker's claim) but never finished: the process stopped mid-send. Whether the
 * platform got the message is unknown; the caller keeps them as possibly delivered.
 */
/** Takes a stale send for ending it (processing → failed); false when another tick took it first. */
export async function claimStaleSend(db: Database, id: number, error: string) {
  const { count } = await db.prisma.envelope.updateMany({
    where: { id, status: "processing", claimedBy: null },
    data: { status: "failed", lastDeliveryError: error, doneAt: new Date() },
  });
  return count === 1;
}

export async function findStaleSends(db: Database, startedBefore: Date) {
  const rows = await db.prisma.envelope.findMany({
    where: { status: "processing", claimedBy: null, to: { startsWith: "channel:" }, updatedAt: { lt: startedBefore } },
    include: { conversation: { select: { id: true, channel: true, platformChatId: true } } },
    take: 100,
  });
  return rows.map(withMetadata);
}

/** The first envelope that carried a message in or out (an operator's reply threads under it), or null. */
export async function firstEnvelopeIdOfMessage(db: Database, messageId: number): Promise<number | null> {
  const envelope = await db.prisma.envelope.findFirst({ where: { messageId }, orderBy: { id: "asc" }, select: { id: true } });
  return envelope?.id ?? null;
}

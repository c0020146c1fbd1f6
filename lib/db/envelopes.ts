import type { Db } from "./client";
import { isUniqueViolation } from "./errors";
import { sqlTransaction, type SqlRunner } from "./sql";

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
  metadata?: Record<string, unknown>;
  dedupeKey?: string | null;
};

/** Creates an envelope; a reply joins its parent's materialized thread. */
export async function createEnvelope(db: Db, input: NewEnvelope) {
  const parent = input.replyToEnvelopeId
    ? await db.envelope.findUnique({ where: { id: input.replyToEnvelopeId }, select: { id: true, threadRootId: true } })
    : null;
  return db.envelope.create({
    data: { ...input, threadRootId: parent ? (parent.threadRootId ?? parent.id) : null, status: input.status ?? "pending", metadata: (input.metadata ?? {}) as never },
  });
}

/** Creates the envelope unless one with the same dedupe key exists (then null): at-most-once. */
export async function createEnvelopeOnce(db: Db, input: NewEnvelope & { dedupeKey: string }) {
  try {
    return await createEnvelope(db, input);
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

export function findEnvelopeByDedupeKey(db: Db, dedupeKey: string) {
  return db.envelope.findUnique({ where: { dedupeKey } });
}

/** Takes a refused send back for another attempt (only while it is still failed: one taker wins). */
export async function reclaimRefusedSend(db: Db, id: number, text: string) {
  const { count } = await db.envelope.updateMany({ where: { id, status: "failed" }, data: { status: "processing", text, lastDeliveryError: null, doneAt: null } });
  return count === 1;
}

/** A failed envelope back to pending, from scratch (an operator's retry); false if it was not failed. */
export async function requeueFailedEnvelope(db: Db, id: number) {
  const { count } = await db.envelope.updateMany({
    where: { id, status: "failed" },
    data: { status: "pending", attempts: 0, deliverAt: null, doneAt: null, claimedBy: null, leaseUntil: null, lastDeliveryError: null },
  });
  return count === 1;
}

/** Frees a turn's reply key held by failed sends, so a retried turn may answer (the failed envelopes stay as the record). */
export function releaseReplyKey(db: Db, inboundEnvelopeId: number) {
  return db.envelope.updateMany({ where: { dedupeKey: `reply:${inboundEnvelopeId}`, status: "failed" }, data: { dedupeKey: null } });
}

export function findEnvelope(db: Db, id: number) {
  return db.envelope.findUnique({ where: { id } });
}

/** Ends an envelope: done, or failed with the error the operator will see. */
export async function finishEnvelope(
  db: Db,
  id: number,
  outcome: { status: "done" | "failed"; error?: string; messageId?: number; metadata?: Record<string, unknown> },
) {
  const patch = { ...(outcome.metadata ?? {}), ...(outcome.error ? { lastDeliveryError: outcome.error } : {}) };
  const now = new Date();
  // One statement on every turn's path: the metadata is merged in SQL, not read first.
  await sqlTransaction(db, (sql) =>
    sql.run(
      `UPDATE "Envelope" SET "status" = ?, "lastDeliveryError" = COALESCE(?, "lastDeliveryError"), "messageId" = COALESCE(?, "messageId"),
         "metadata" = ${mergeJson(sql)}, "doneAt" = ?, "claimedBy" = NULL, "leaseUntil" = NULL, "updatedAt" = ? WHERE "id" = ?`,
      outcome.status, outcome.error ?? null, outcome.messageId ?? null, patch, now, now, id,
    ),
  );
}

/** `"metadata"` with the keys of a JSON object parameter set on top, like a spread (callers patch scalar values: json_patch would merge nested objects). */
function mergeJson(sql: SqlRunner) {
  return sql.dialect === "sqlite" ? `json_patch("metadata", ?)` : `"metadata" || CAST(? AS jsonb)`;
}

/** Puts a claimed envelope back for a later attempt (model error, timeout). */
export async function retryEnvelopeLater(db: Db, id: number, at: Date, error: string) {
  await sqlTransaction(db, (sql) =>
    sql.run(
      `UPDATE "Envelope" SET "status" = 'pending', "deliverAt" = ?, "lastDeliveryError" = ?, "metadata" = ${mergeJson(sql)},
         "claimedBy" = NULL, "leaseUntil" = NULL, "updatedAt" = ? WHERE "id" = ?`,
      at, error, { lastDeliveryError: error }, new Date(), id,
    ),
  );
}

// The in-process agent runs chat turns (agent envelopes carrying a message) and
// channel sends; other agent mail waits for its reader (POST /api/v1/envelopes/receive).
// Background tasks are agent envelopes that carry a fork.
const workerMail = {
  AND: [{ OR: [{ to: { startsWith: "channel:" } }, { to: { startsWith: "agent:" }, messageId: { not: null } }, { to: { startsWith: "agent:" }, forkId: { not: null } }] }],
};

// workerMail in SQL, for the claim on every turn's path. LIKE matches Prisma's startsWith.
const WORKER_MAIL_SQL = `("to" LIKE 'channel:%' OR ("to" LIKE 'agent:%' AND ("messageId" IS NOT NULL OR "forkId" IS NOT NULL)))`;

/** Envelopes a worker may run now: due pending ones, and ones whose lease ran out. */
export function findClaimable(db: Db, now: Date, take: number) {
  return db.envelope.findMany({
    where: {
      OR: [
        { status: "pending", OR: [{ deliverAt: null }, { deliverAt: { lte: now } }] },
        { status: "processing", leaseUntil: { lt: now } },
      ],
      ...workerMail,
    },
    orderBy: { id: "asc" },
    take,
    select: { id: true, conversationId: true, to: true, status: true, attempts: true, messageId: true },
  });
}

/**
 * Claims one envelope for this worker, or answers false. One transaction checks
 * and claims: nobody else runs an envelope of the same conversation (live lease),
 * no older envelope of it is still waiting (order is kept), and the conditional
 * update wins. On PostgreSQL a transaction-scoped advisory lock on the
 * conversation makes the check-then-claim atomic across instances; SQLite has one
 * writer, so its transactions are serial already.
 */
export async function claimEnvelope(
  db: Db,
  candidate: { id: number; conversationId: number | null },
  worker: string,
  now: Date,
  leaseMs: number,
  options: { advisoryLock: boolean },
) {
  return sqlTransaction(db, async (sql) => {
    const { conversationId } = candidate;
    if (conversationId !== null) {
      if (options.advisoryLock) await sql.all(`SELECT 1 AS locked FROM pg_advisory_xact_lock(7301, CAST(? AS int))`, conversationId);
      const blocking = await sql.one(
        `SELECT "id" FROM "Envelope" WHERE "conversationId" = ? AND "id" <> ? AND ${WORKER_MAIL_SQL}
           AND (("status" = 'processing' AND "leaseUntil" >= ?) OR ("id" < ? AND "status" = 'pending' AND ("deliverAt" IS NULL OR "deliverAt" <= ?)))
         LIMIT 1`,
        conversationId, candidate.id, now, candidate.id, now,
      );
      if (blocking) return false;
    }
    const claimed = await sql.run(
      `UPDATE "Envelope" SET "status" = 'processing', "claimedBy" = ?, "leaseUntil" = ?, "attempts" = "attempts" + 1, "updatedAt" = ?
       WHERE "id" = ? AND (("status" = 'pending' AND ("deliverAt" IS NULL OR "deliverAt" <= ?)) OR ("status" = 'processing' AND "leaseUntil" < ?))`,
      worker, new Date(now.getTime() + leaseMs), now, candidate.id, now, now,
    );
    return claimed === 1;
  });
}

/** The soonest future deliverAt among pending envelopes, for the scheduler's timer. */
export async function nextDueAt(db: Db, now: Date): Promise<Date | null> {
  const [pending, lease] = await Promise.all([
    db.envelope.findFirst({ where: { status: "pending", deliverAt: { gt: now }, ...workerMail }, orderBy: { deliverAt: "asc" }, select: { deliverAt: true } }),
    db.envelope.findFirst({ where: { status: "processing", leaseUntil: { gt: now } }, orderBy: { leaseUntil: "asc" }, select: { leaseUntil: true } }),
  ]);
  const times = [pending?.deliverAt, lease?.leaseUntil].filter((t): t is Date => t instanceof Date);
  return times.length ? new Date(Math.min(...times.map((t) => t.getTime()))) : null;
}

export type EnvelopeFilter = {
  to?: string;
  from?: string;
  /** Matches either address (dashboard search). */
  address?: string;
  status?: EnvelopeStatus;
  /** Only envelopes scheduled for later (deliverAt in the future). */
  scheduled?: boolean;
  beforeId?: number;
  take: number;
};

export function listEnvelopes(db: Db, filter: EnvelopeFilter, now: Date) {
  return db.envelope.findMany({
    where: {
      ...(filter.to ? { to: filter.to } : {}),
      ...(filter.from ? { from: filter.from } : {}),
      ...(filter.address ? { OR: [{ to: { contains: filter.address } }, { from: { contains: filter.address } }] } : {}),
      ...(filter.status ? { status: filter.status } : {}),
      ...(filter.scheduled ? { deliverAt: { gt: now } } : {}),
      ...(filter.beforeId ? { id: { lt: filter.beforeId } } : {}),
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
export async function takeAgentMail(db: Db, to: string, now: Date, take: number) {
  const due = await db.envelope.findMany({
    where: { to, status: "pending", OR: [{ deliverAt: null }, { deliverAt: { lte: now } }] },
    orderBy: { id: "asc" },
    take,
  });
  const taken = [];
  for (const envelope of due) {
    const { count } = await db.envelope.updateMany({ where: { id: envelope.id, status: "pending" }, data: { status: "done", doneAt: now } });
    if (count === 1) taken.push({ ...envelope, status: "done", doneAt: now });
  }
  return taken;
}

export function findEnvelopeWithTurn(db: Db, id: number) {
  return db.envelope.findUnique({ where: { id }, include: { turn: { select: { id: true } } } });
}

/**
 * Sends that started (outbound envelope written, status processing, not held by
 * a worker's claim) but never finished: the process stopped mid-send. Whether the
 * platform got the message is unknown; the caller keeps them as possibly delivered.
 */
/** Takes a stale send for ending it (processing → failed); false when another tick took it first. */
export async function claimStaleSend(db: Db, id: number, error: string) {
  const { count } = await db.envelope.updateMany({
    where: { id, status: "processing", claimedBy: null },
    data: { status: "failed", lastDeliveryError: error, doneAt: new Date() },
  });
  return count === 1;
}

export function findStaleSends(db: Db, startedBefore: Date) {
  return db.envelope.findMany({
    where: { status: "processing", claimedBy: null, to: { startsWith: "channel:" }, updatedAt: { lt: startedBefore } },
    include: { conversation: { select: { id: true, channel: true, platformChatId: true } } },
    take: 100,
  });
}

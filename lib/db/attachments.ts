import type { Database } from "./database";
import { type SqlValue, sqlDate } from "./sql";

/**
 * The media fetch job's queue queries (lib/media/fetch-job.ts decides what to do):
 * claiming due downloads, recording how each ended, and the retention sweep.
 * An Attachment is due while it is "pending" and its `nextAttemptAt` has passed (or
 * was never set). A claim counts the attempt and pushes `nextAttemptAt` one lease
 * ahead in the same statement, so no other instance (or overlapping drain) takes
 * the row while it downloads, and a crashed instance's download is taken over
 * when its lease runs out. A claim's `attempts` is its fence: a finish that
 * comes after another claim took the row over changes nothing.
 */

export type ClaimedAttachment = {
  id: number;
  messageId: number;
  kind: string;
  source: string;
  sourceRef: string | null;
  /** The platform's declared size, when it gave one. */
  sizeBytes: number | null;
  /** Attempts including this one (the claim's fence). */
  attempts: number;
  /** The channel adapter of the message's conversation: its bot (`telegram`, `telegram-7`…) holds the bytes. */
  channel: string;
};

type ClaimRow = Omit<ClaimedAttachment, "sizeBytes" | "channel"> & { sizeBytes: number | string | null };

const DUE = `"status" = 'pending' AND ("nextAttemptAt" IS NULL OR "nextAttemptAt" <= ?)`;

/**
 * Claims up to `take` due downloads, oldest first. On PostgreSQL rows another
 * instance is claiming are skipped (SKIP LOCKED), and the outer condition is
 * checked again on the locked row, so a row is never claimed twice.
 */
export async function claimAttachments(db: Database, options: { now: Date; leaseMs: number; take: number }): Promise<ClaimedAttachment[]> {
  if (options.take <= 0) return [];
  const leaseUntil = new Date(options.now.getTime() + options.leaseMs);
  const lock = db.dialect === "postgresql" ? " FOR UPDATE SKIP LOCKED" : "";
  const rows = await db.write<ClaimRow>([
    `UPDATE "Attachment" SET "attempts" = "attempts" + 1, "nextAttemptAt" = ?, "updatedAt" = ?
     WHERE "id" IN (SELECT "id" FROM "Attachment" WHERE ${DUE} ORDER BY "id" LIMIT ?${lock}) AND ${DUE}
     RETURNING "id", "messageId", "kind", "source", "sourceRef", "sizeBytes", "attempts"`,
    leaseUntil,
    options.now,
    options.now,
    options.take,
    options.now,
  ]);
  if (rows.length === 0) return [];
  // Which bot's adapter fetches each file: a Telegram file id is valid only for the bot that received it.
  const messageIds = [...new Set(rows.map((row) => row.messageId))];
  const channels = await db.read<{ id: number; channel: string }>(
    `SELECT m."id", c."channel" FROM "Message" m JOIN "Conversation" c ON c."id" = m."conversationId"
     WHERE m."id" IN (${messageIds.map(() => "?").join(", ")})`,
    ...messageIds,
  );
  const channelOf = new Map(channels.map((row) => [Number(row.id), row.channel]));
  return rows
    .map((row) => ({
      ...row,
      sizeBytes: row.sizeBytes === null ? null : Number(row.sizeBytes),
      channel: channelOf.get(Number(row.messageId)) ?? row.source,
    }))
    .sort((a, b) => a.id - b.id);
}

/** When the next pending download falls due (a retry's backoff, a lease), or null when none waits. */
export async function nextAttemptDue(db: Database): Promise<Date | null> {
  // Hand-written like the claim: the job runs these beside the webhooks, on the same connection.
  const [row] = await db.read<{ nextAttemptAt: Date | string | null }>(
    `SELECT "nextAttemptAt" FROM "Attachment" WHERE "status" = 'pending'
     ORDER BY CASE WHEN "nextAttemptAt" IS NULL THEN 0 ELSE 1 END, "nextAttemptAt" LIMIT 1`,
  );
  if (!row) return null;
  return sqlDate(row.nextAttemptAt) ?? new Date(0);
}

/** How a download ended: the bytes stored, too large, failed for good, unsupported, or another attempt later. */
export type AttachmentOutcome =
  | { status: "stored"; blobSha256: string; mimeType: string; sizeBytes: number; width: number | null; height: number | null }
  | { status: "too_large"; sizeBytes: number | null }
  | { status: "failed" | "unsupported"; error: string }
  | { status: "pending"; error: string; nextAttemptAt: Date };

/** Records a claimed download's end; false when the claim was taken over meanwhile (nothing changed). */
export async function finishAttachment(
  db: Database,
  claim: Pick<ClaimedAttachment, "id" | "attempts">,
  outcome: AttachmentOutcome,
  now = new Date(),
) {
  const columns: Record<string, SqlValue> =
    outcome.status === "stored"
      ? {
          status: "stored",
          error: null,
          blobSha256: outcome.blobSha256,
          mimeType: outcome.mimeType,
          sizeBytes: outcome.sizeBytes,
          width: outcome.width,
          height: outcome.height,
          nextAttemptAt: null,
        }
      : outcome.status === "too_large"
        ? { status: "too_large", error: null, nextAttemptAt: null, ...(outcome.sizeBytes ? { sizeBytes: outcome.sizeBytes } : {}) }
        : outcome.status === "pending"
          ? { error: outcome.error, nextAttemptAt: outcome.nextAttemptAt }
          : { status: outcome.status, error: outcome.error, nextAttemptAt: null };
  const names = Object.keys(columns);
  const rows = await db.write<{ id: number }>([
    `UPDATE "Attachment" SET ${names.map((name) => `"${name}" = ?`).join(", ")}, "updatedAt" = ?
     WHERE "id" = ? AND "status" = 'pending' AND "attempts" = ? RETURNING "id"`,
    ...names.map((name) => columns[name]),
    now,
    claim.id,
    claim.attempts,
  ]);
  return rows.length === 1;
}

const RETENTION_BATCH = 500;

/**
 * The retention sweep: attachments of messages sent before `before` lose their bytes
 * (and a pending one its download): "failed" with `reason`, so the timeline and the
 * prompt still say what was there. Returns the blobs they referred to, for the blob
 * store to remove those nothing else refers to.
 */
export async function expireAttachments(db: Database, before: Date, reason: string): Promise<string[]> {
  const released: string[] = [];
  for (;;) {
    const rows = await db.prisma.attachment.findMany({
      where: { message: { sentAt: { lt: before } }, OR: [{ blobSha256: { not: null } }, { status: "pending" }] },
      select: { id: true, blobSha256: true },
      orderBy: { id: "asc" },
      take: RETENTION_BATCH,
    });
    if (rows.length === 0) return released;
    await db.prisma.attachment.updateMany({
      where: { id: { in: rows.map((row) => row.id) } },
      data: { status: "failed", error: reason, blobSha256: null, nextAttemptAt: null },
    });
    for (const row of rows) if (row.blobSha256) released.push(row.blobSha256);
    if (rows.length < RETENTION_BATCH) return released;
  }
}

/**
 * Stored blobs no attachment refers to and older than `before` (a download whose
 * attachment was deleted while it ran, a removal the disk refused): the orphan sweep's
 * candidates, at most `take`.
 */
export async function findOrphanBlobs(db: Database, before: Date, take = 500): Promise<string[]> {
  const rows = await db.read<{ sha256: string }>(
    `SELECT b."sha256" FROM "MediaBlob" b
     WHERE b."createdAt" < ? AND NOT EXISTS (SELECT 1 FROM "Attachment" a WHERE a."blobSha256" = b."sha256")
     LIMIT ?`,
    before,
    take,
  );
  return rows.map((row) => row.sha256);
}

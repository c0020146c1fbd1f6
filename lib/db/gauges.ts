import { WORKER_MAIL_SQL } from "./claim";
import type { Database } from "./database";
import { sqlDate } from "./sql";

/**
 * The queue and the handoff inbox in numbers, for /metrics: three index-backed
 * counts (the dashboard's queue page reads more, lib/db/queue-stats.ts).
 */
export async function gaugeCounts(db: Database, now: Date) {
  const [waiting] = await db.read<{ turns: number; envelopes: number; oldest: string | Date | null }>(
    `SELECT COUNT(DISTINCT COALESCE("conversationId", -"id")) AS "turns", COUNT(*) AS "envelopes", MIN("createdAt") AS "oldest"
     FROM "Envelope" WHERE "status" = 'pending' AND ("deliverAt" IS NULL OR "deliverAt" <= ?) AND ${WORKER_MAIL_SQL}`,
    now,
  );
  const [running] = await db.read<{ n: number }>(
    `SELECT COUNT(DISTINCT COALESCE("conversationId", -"id")) AS "n" FROM "Envelope" WHERE "status" = 'processing' AND "leaseUntil" >= ?`,
    now,
  );
  const [handoffs] = await db.read<{ n: number }>(`SELECT COUNT(*) AS "n" FROM "Conversation" WHERE "handoffState" = 'waiting'`);
  const oldest = sqlDate(waiting?.oldest);
  return {
    turnsWaiting: Number(waiting?.turns ?? 0),
    envelopesWaiting: Number(waiting?.envelopes ?? 0),
    oldestWaitSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
    turnsRunning: Number(running?.n ?? 0),
    handoffsWaiting: Number(handoffs?.n ?? 0),
  };
}

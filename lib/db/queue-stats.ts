import { type BotScope, conversationScopeSql } from "./conversation-scope";
import type { Database } from "./database";
import { WORKER_MAIL_SQL } from "./claim";

const MINUTE = 60_000;
/** The newest answered messages the time-to-answer plot reads (bounds the query on busy servers). */
const SAMPLES = 5_000;

const toDate = (v: string | Date) => (v instanceof Date ? v : new Date(v));
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

/** Whose queue: one bot's (`botId`), a caller's bots (`bots`, lib/auth/bot-scope.ts), both, or (neither) every bot's. */
export type QueueOf = { botId?: number; bots?: BotScope };

/** The bots counted: one bot outside a caller's bots is none (as an unknown bot). */
function queueScope({ botId, bots }: QueueOf): BotScope {
  if (botId === undefined) return bots ?? null;
  return !bots || bots.includes(botId) ? [botId] : [];
}

/**
 * What the queue looks like now, for operators: turns waiting (conversations with
 * a due envelope, each one turn), envelopes waiting, the oldest wait, turns
 * running; and the time to answer (a user's message stored → its envelope done
 * with the answer sent) as p50/p99 per minute over the last `minutes`.
 */
export async function queueStats(db: Database, now: Date, minutes = 60, of: QueueOf = {}) {
  const since = new Date(Math.floor(now.getTime() / MINUTE) * MINUTE - (minutes - 1) * MINUTE);
  // Some bots' share of the queue: their conversations' envelopes only.
  const scope = queueScope(of);
  const condition = conversationScopeSql(scope, "c");
  const ofBot = scope ? `AND "conversationId" IN (SELECT c."id" FROM "Conversation" c WHERE ${condition.sql})` : "";
  const bot = condition.params;
  const { waiting, running, answered } = await db.transaction(async (sql) => {
    const waiting = await sql.one<{ turns: number; envelopes: number; oldest: string | Date | null }>(
      `SELECT COUNT(DISTINCT COALESCE("conversationId", -"id")) AS "turns", COUNT(*) AS "envelopes", MIN("createdAt") AS "oldest"
       FROM "Envelope" WHERE "status" = 'pending' AND ("deliverAt" IS NULL OR "deliverAt" <= ?) AND ${WORKER_MAIL_SQL} ${ofBot}`,
      now,
      ...bot,
    );
    const running = await sql.one<{ n: number }>(
      `SELECT COUNT(DISTINCT COALESCE("conversationId", -"id")) AS "n" FROM "Envelope" WHERE "status" = 'processing' AND "leaseUntil" >= ? ${ofBot}`,
      now,
      ...bot,
    );
    // The newest user messages first (primary key order), those answered inside the window.
    const answered = await sql.all<{ createdAt: string | Date; doneAt: string | Date }>(
      `SELECT "createdAt", "doneAt" FROM (SELECT "createdAt", "doneAt", "status", "metadata" FROM "Envelope" WHERE "to" LIKE 'agent:%' AND "messageId" IS NOT NULL ${ofBot} ORDER BY "id" DESC LIMIT ?) e
       WHERE "status" = 'done' AND "doneAt" >= ?`,
      ...bot,
      SAMPLES,
      since,
    );
    return { waiting, running, answered };
  });
  const buckets = Array.from({ length: minutes }, () => [] as number[]);
  for (const a of answered) {
    const done = toDate(a.doneAt).getTime();
    buckets[Math.floor((done - since.getTime()) / MINUTE)]?.push(done - toDate(a.createdAt).getTime());
  }
  const timeToAnswer = buckets.map((ms, i) => {
    const sorted = ms.sort((x, y) => x - y);
    return {
      at: new Date(since.getTime() + i * MINUTE).toISOString(),
      n: sorted.length,
      p50: sorted.length ? percentile(sorted, 50) : null,
      p99: sorted.length ? percentile(sorted, 99) : null,
    };
  });
  return {
    waiting: {
      turns: Number(waiting?.turns ?? 0),
      envelopes: Number(waiting?.envelopes ?? 0),
      oldestWaitMs: waiting?.oldest ? Math.max(0, now.getTime() - toDate(waiting.oldest).getTime()) : null,
    },
    runningTurns: Number(running?.n ?? 0),
    timeToAnswer,
  };
}

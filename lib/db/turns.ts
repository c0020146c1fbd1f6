import type { Database } from "./database";
import { type EnvelopeOutcome, finishStatement } from "./envelopes";

export type TurnRecord = {
  envelopeId: number;
  conversationId: number;
  forkId: number | null;
  model: string;
  system: string;
  prompt: unknown;
  toolCalls: unknown[];
  usage: Record<string, unknown>;
  latencyMs: number;
  error?: string | null;
  /** From `usage` and the price table (lib/usage/turn-usage.ts); null when unknown. */
  inputTokens?: number | null;
  outputTokens?: number | null;
  cachedInputTokens?: number | null;
  costUsd?: number | null;
  /** A regenerate's turn: the turn whose answer it replaced. */
  regeneratesTurnId?: number | null;
};

/**
 * One row per inbound envelope: a retried turn overwrites its earlier attempt
 * (createdAt stays the first attempt's, as Prisma's upsert leaves it). On the
 * hand-written path: every turn writes one.
 */
export async function saveTurn(db: Database, turn: TurnRecord): Promise<void> {
  await db.write(() => turnStatement(turn));
}

/**
 * The turn record and the end of its envelope(s) (lib/db/envelopes.ts `finishStatement`)
 * together: on PostgreSQL one statement (a data-modifying CTE: one round trip instead
 * of two), on SQLite one transaction. Never an ended envelope without its turn.
 */
export async function saveTurnAndEnd(db: Database, turn: TurnRecord, id: number | number[], outcome: EnvelopeOutcome): Promise<void> {
  if (db.dialect === "postgresql") {
    // The conversation is locked before the envelopes, as deleting it does (its cascade reaches them after):
    // the Turn's foreign key check would otherwise take it after the envelopes' locks, a deadlock with a delete.
    await db.write(() => {
      const [insert, ...insertParams] = turnStatement(turn);
      const [update, ...updateParams] = finishStatement(db, id, outcome);
      return [
        `WITH "turn" AS (${insert} RETURNING 1) ${update} AND EXISTS (SELECT 1 FROM "Conversation" WHERE "id" = ? FOR KEY SHARE)`,
        ...insertParams,
        ...updateParams,
        turn.conversationId,
      ];
    });
    return;
  }
  await db.transaction(async (sql) => {
    await sql.run(...turnStatement(turn));
    await sql.run(...finishStatement(db, id, outcome));
  });
}

function turnStatement(turn: TurnRecord) {
  const json = (value: unknown) => value as Record<string, unknown>;
  return [
    `INSERT INTO "Turn" ("envelopeId", "conversationId", "forkId", "model", "system", "prompt", "toolCalls", "usage", "latencyMs", "error", "createdAt",
         "inputTokens", "outputTokens", "cachedInputTokens", "costUsd", "regeneratesTurnId")
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT ("envelopeId") DO UPDATE SET "conversationId" = excluded."conversationId", "forkId" = excluded."forkId", "model" = excluded."model",
         "system" = excluded."system", "prompt" = excluded."prompt", "toolCalls" = excluded."toolCalls", "usage" = excluded."usage",
         "latencyMs" = excluded."latencyMs", "error" = excluded."error", "inputTokens" = excluded."inputTokens",
         "outputTokens" = excluded."outputTokens", "cachedInputTokens" = excluded."cachedInputTokens", "costUsd" = excluded."costUsd"`,
    turn.envelopeId,
    turn.conversationId,
    turn.forkId,
    turn.model,
    turn.system,
    json(turn.prompt),
    json(turn.toolCalls),
    json(turn.usage),
    turn.latencyMs,
    turn.error ?? null,
    new Date(),
    turn.inputTokens ?? null,
    turn.outputTokens ?? null,
    turn.cachedInputTokens ?? null,
    turn.costUsd ?? null,
    turn.regeneratesTurnId ?? null,
  ] as const;
}

export function findTurnByEnvelope(db: Database, envelopeId: number) {
  return db.prisma.turn.findUnique({ where: { envelopeId } });
}

export function findTurn(db: Database, id: number) {
  return db.prisma.turn.findUnique({ where: { id }, include: { envelope: { select: { id: true, messageId: true, status: true } } } });
}

/** The bot a turn's conversation belongs to (the prompt inspector names it), or null. */
export async function turnBot(db: Database, conversationId: number) {
  const conversation = await db.prisma.conversation.findUnique({ where: { id: conversationId }, select: { botId: true } });
  if (!conversation?.botId) return null;
  return db.prisma.bot.findUnique({ where: { id: conversation.botId }, select: { id: true, name: true, platform: true, username: true } });
}

/** The turns just before and after one in the same conversation (by id: the order they were written). */
export async function turnNeighbours(db: Database, turn: { id: number; conversationId: number }) {
  const [previous, next] = await Promise.all([
    db.prisma.turn.findFirst({
      where: { conversationId: turn.conversationId, id: { lt: turn.id } },
      orderBy: { id: "desc" },
      select: { id: true },
    }),
    db.prisma.turn.findFirst({
      where: { conversationId: turn.conversationId, id: { gt: turn.id } },
      orderBy: { id: "asc" },
      select: { id: true },
    }),
  ]);
  return { previousTurnId: previous?.id ?? null, nextTurnId: next?.id ?? null };
}

/**
 * The turn behind a message: a user's message is the inbound envelope the turn
 * ran for; the agent's answer is the outbound envelope replying to it.
 */
/**
 * The turns behind an agent's answer, for a regenerate: `answered`, the turn of the user's
 * message it answers (its envelopes reply to that message's envelope), and `latest`, the
 * turn whose text it carries now (a regenerate's that edited it, else `answered`).
 */
export async function answerTurns(db: Database, messageId: number): Promise<{ answered: number; latest: number } | null> {
  const envelopes = await db.prisma.envelope.findMany({
    where: { messageId },
    select: { turn: { select: { id: true } }, replyTo: { select: { turn: { select: { id: true } } } } },
    orderBy: { id: "asc" },
  });
  const answered = envelopes.find((e) => e.replyTo?.turn)?.replyTo?.turn?.id;
  if (answered === undefined) return null;
  const own = envelopes.flatMap((e) => (e.turn ? [e.turn.id] : []));
  return { answered, latest: own.length ? Math.max(...own) : answered };
}

/** The regenerates' turns that replaced this turn's answer (GET /turns/{id} shows both ways). */
export async function regeneratedBy(db: Database, turnId: number): Promise<number[]> {
  const rows = await db.prisma.turn.findMany({ where: { regeneratesTurnId: turnId }, select: { id: true }, orderBy: { id: "asc" } });
  return rows.map((r) => r.id);
}

/** When a message was stored, or null when there is no such message. */
export async function messageStoredAt(db: Database, messageId: number): Promise<Date | null> {
  const message = await db.prisma.message.findUnique({ where: { id: messageId }, select: { createdAt: true } });
  return message?.createdAt ?? null;
}

export async function findTurnForMessage(db: Database, messageId: number): Promise<number | null> {
  const envelopes = await db.prisma.envelope.findMany({
    where: { messageId },
    select: { turn: { select: { id: true } }, replyTo: { select: { turn: { select: { id: true } } } } },
    orderBy: { id: "asc" },
  });
  // The latest of its own turns: an answer regenerated in place carries the last regenerate's.
  for (const e of envelopes.toReversed()) if (e.turn) return e.turn.id;
  for (const e of envelopes) if (e.replyTo?.turn) return e.replyTo.turn.id;
  return null;
}

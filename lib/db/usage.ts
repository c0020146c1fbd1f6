import type { Database } from "./database";

/** Sums of the Turn usage columns over one group (or all turns in range). */
export type UsageSums = {
  turns: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  /** Of the priced turns only; null when none was priced. */
  costUsd: number | null;
  /** Turns whose model had no price: their spend is unknown, not zero. */
  unpricedTurns: number;
};

export type UsageGroup = "day" | "model" | "conversation";

type Row = Record<keyof UsageSums, number | string | null> & { key: string | number; label?: string | null };

const SUMS = `COUNT(*) AS "turns", SUM(COALESCE("inputTokens", 0)) AS "inputTokens", SUM(COALESCE("outputTokens", 0)) AS "outputTokens",
  SUM(COALESCE("cachedInputTokens", 0)) AS "cachedInputTokens", SUM("costUsd") AS "costUsd",
  SUM(CASE WHEN "costUsd" IS NULL THEN 1 ELSE 0 END) AS "unpricedTurns"`;

/** The UTC day of a timestamp: SQLite stores Prisma's ISO text, PostgreSQL a UTC timestamp. */
const dayOf = (db: Database) => (db.dialect === "sqlite" ? `substr(t."createdAt", 1, 10)` : `to_char(t."createdAt", 'YYYY-MM-DD')`);

function sums(row: Row | undefined): UsageSums {
  // PostgreSQL returns SUM of integers as bigint text.
  return {
    turns: Number(row?.turns ?? 0),
    inputTokens: Number(row?.inputTokens ?? 0),
    outputTokens: Number(row?.outputTokens ?? 0),
    cachedInputTokens: Number(row?.cachedInputTokens ?? 0),
    costUsd: row?.costUsd === null || row?.costUsd === undefined ? null : Math.round(Number(row.costUsd) * 1e8) / 1e8,
    unpricedTurns: Number(row?.unpricedTurns ?? 0),
  };
}

/** Every turn in [from, to), optionally of one conversation, summed. */
export async function usageTotals(db: Database, range: { from: Date; to: Date; conversationId?: number }): Promise<UsageSums> {
  const byConversation = range.conversationId !== undefined;
  const [row] = await db.read<Row>(
    `SELECT ${SUMS} FROM "Turn" t WHERE t."createdAt" >= ? AND t."createdAt" < ?${byConversation ? ` AND t."conversationId" = ?` : ""}`,
    range.from,
    range.to,
    ...(byConversation ? [range.conversationId] : []),
  );
  return sums(row);
}

/**
 * Turns in [from, to) summed per UTC day, per model (`provider:model`) or per
 * conversation (the `limit` most expensive, then by tokens). Index-backed on
 * `Turn.createdAt`; the grouping is one pass over the range's rows.
 */
export async function usageByGroup(
  db: Database,
  query: { from: Date; to: Date; groupBy: UsageGroup; limit?: number },
): Promise<(UsageSums & { key: string; label: string | null })[]> {
  const key = query.groupBy === "day" ? dayOf(db) : query.groupBy === "model" ? `t."model"` : `t."conversationId"`;
  const conversation = query.groupBy === "conversation";
  const order = conversation
    ? `ORDER BY COALESCE(SUM("costUsd"), 0) DESC, SUM(COALESCE("inputTokens", 0) + COALESCE("outputTokens", 0)) DESC, "key"`
    : `ORDER BY "key"`;
  const rows = await db.read<Row>(
    `SELECT ${key} AS "key", ${SUMS} FROM "Turn" t WHERE t."createdAt" >= ? AND t."createdAt" < ? GROUP BY ${key} ${order}${query.limit ? ` LIMIT ${Math.trunc(query.limit)}` : ""}`,
    query.from,
    query.to,
  );
  const labels = conversation
    ? await conversationLabels(
        db,
        rows.map((r) => Number(r.key)),
      )
    : new Map<number, string>();
  return rows.map((r) => ({ key: String(r.key), label: conversation ? (labels.get(Number(r.key)) ?? null) : null, ...sums(r) }));
}

/** What the dashboard calls a conversation: its title, else its channel and chat id. */
async function conversationLabels(db: Database, ids: number[]): Promise<Map<number, string>> {
  if (!ids.length) return new Map();
  const rows = await db.prisma.conversation.findMany({
    where: { id: { in: ids } },
    select: { id: true, title: true, channel: true, platformChatId: true, topicName: true },
  });
  return new Map(rows.map((c) => [c.id, [c.title ?? `${c.channel} ${c.platformChatId}`, c.topicName].filter(Boolean).join(" › ")]));
}

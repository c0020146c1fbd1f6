import { type BotScope, conversationScopeSql } from "./conversation-scope";
import type { Database } from "./database";
import type { SqlValue } from "./sql";

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

/**
 * Sums of the replays (single and dataset runs) started in range, once they ended: what trying
 * settings on past turns cost. Kept apart from the live turns' sums, which say
 * what answering users cost.
 */
export type ReplaySums = {
  replays: number;
  inputTokens: number;
  outputTokens: number;
  /** Of the priced replays only; null when none was priced. */
  costUsd: number | null;
  /** Replays that used tokens of a model without a price: their spend is unknown, not zero. */
  unpricedReplays: number;
};

export type UsageGroup = "day" | "model" | "conversation";

type Row = Record<keyof UsageSums, number | string | null> & { key: string | number; label?: string | null };
type ReplayRow = Record<keyof ReplaySums, number | string | null>;

const SUMS = `COUNT(*) AS "turns", SUM(COALESCE("inputTokens", 0)) AS "inputTokens", SUM(COALESCE("outputTokens", 0)) AS "outputTokens",
  SUM(COALESCE("cachedInputTokens", 0)) AS "cachedInputTokens", SUM("costUsd") AS "costUsd",
  SUM(CASE WHEN "costUsd" IS NULL THEN 1 ELSE 0 END) AS "unpricedTurns"`;

/**
 * A replay counts once it ended (a running one has no usage yet) and if it had a model to
 * call (a run's turn whose model is gone never called one); it has no cached-input column.
 */
const REPLAY_SUMS = `COUNT(*) AS "replays", SUM(COALESCE("inputTokens", 0)) AS "inputTokens", SUM(COALESCE("outputTokens", 0)) AS "outputTokens",
  SUM("costUsd") AS "costUsd",
  SUM(CASE WHEN "costUsd" IS NULL AND ("inputTokens" IS NOT NULL OR "outputTokens" IS NOT NULL) THEN 1 ELSE 0 END) AS "unpricedReplays"`;
const REPLAY_ENDED = `r."status" <> 'running' AND r."model" IS NOT NULL`;

/** The UTC day of a timestamp: SQLite stores Prisma's ISO text, PostgreSQL a UTC timestamp. */
const dayOf = (db: Database, alias = "t") =>
  db.dialect === "sqlite" ? `substr(${alias}."createdAt", 1, 10)` : `to_char(${alias}."createdAt", 'YYYY-MM-DD')`;

const money = (value: number | string | null | undefined) =>
  value === null || value === undefined ? null : Math.round(Number(value) * 1e8) / 1e8;

function replaySums(row: ReplayRow | undefined): ReplaySums {
  return {
    replays: Number(row?.replays ?? 0),
    inputTokens: Number(row?.inputTokens ?? 0),
    outputTokens: Number(row?.outputTokens ?? 0),
    costUsd: money(row?.costUsd),
    unpricedReplays: Number(row?.unpricedReplays ?? 0),
  };
}

function sums(row: Row | undefined): UsageSums {
  // PostgreSQL returns SUM of integers as bigint text.
  return {
    turns: Number(row?.turns ?? 0),
    inputTokens: Number(row?.inputTokens ?? 0),
    outputTokens: Number(row?.outputTokens ?? 0),
    cachedInputTokens: Number(row?.cachedInputTokens ?? 0),
    costUsd: money(row?.costUsd),
    unpricedTurns: Number(row?.unpricedTurns ?? 0),
  };
}

/** A usage range: [from, to), optionally one conversation, optionally only a caller's bots' conversations. */
export type UsageRange = { from: Date; to: Date; conversationId?: number; bots?: BotScope };

/** The conditions on a turn or replay alias beyond its time: its conversation, and the caller's bots. */
function rowFilter(alias: "t" | "r", range: UsageRange): { sql: string; params: SqlValue[] } {
  const scope = conversationScopeSql(range.bots, "c");
  return {
    sql:
      (range.conversationId !== undefined ? ` AND ${alias}."conversationId" = ?` : "") +
      (range.bots ? ` AND ${alias}."conversationId" IN (SELECT c."id" FROM "Conversation" c WHERE ${scope.sql})` : ""),
    params: [...(range.conversationId !== undefined ? [range.conversationId] : []), ...(range.bots ? scope.params : [])],
  };
}

/** Every turn in the range, summed. */
export async function usageTotals(db: Database, range: UsageRange): Promise<UsageSums> {
  const filter = rowFilter("t", range);
  const [row] = await db.read<Row>(
    `SELECT ${SUMS} FROM "Turn" t WHERE t."createdAt" >= ? AND t."createdAt" < ?${filter.sql}`,
    range.from,
    range.to,
    ...filter.params,
  );
  return sums(row);
}

/** Replays that ended, started in the range, summed. */
export async function replayTotals(db: Database, range: UsageRange): Promise<ReplaySums> {
  const filter = rowFilter("r", range);
  const [row] = await db.read<ReplayRow>(
    `SELECT ${REPLAY_SUMS} FROM "Replay" r WHERE r."createdAt" >= ? AND r."createdAt" < ? AND ${REPLAY_ENDED}${filter.sql}`,
    range.from,
    range.to,
    ...filter.params,
  );
  return replaySums(row);
}

/** One usage group: the live turns' sums and, apart, the replays'. */
export type UsageGroupRow = UsageSums & { key: string; label: string | null; replays: ReplaySums };

/** The sum of `column` over the rows of one source (0: turns, 1: replays) of the union below. */
const of = (source: 0 | 1, column: string) => `SUM(CASE WHEN u."source" = ${source} THEN COALESCE(u."${column}", 0) ELSE 0 END)`;
const costOf = (source: 0 | 1) => `SUM(CASE WHEN u."source" = ${source} THEN u."costUsd" END)`;

/**
 * Turns and replays in [from, to) summed per UTC day, per model (`provider:model`)
 * or per conversation (the `limit` most expensive, turns and replays together,
 * then by tokens). Index-backed on `Turn.createdAt` and `Replay.createdAt`; one
 * pass over the range's rows of both tables.
 */
export async function usageByGroup(db: Database, query: UsageRange & { groupBy: UsageGroup; limit?: number }): Promise<UsageGroupRow[]> {
  const turns = rowFilter("t", query);
  const replays = rowFilter("r", query);
  const keyOf = (alias: "t" | "r") =>
    query.groupBy === "day" ? dayOf(db, alias) : query.groupBy === "model" ? `${alias}."model"` : `${alias}."conversationId"`;
  const conversation = query.groupBy === "conversation";
  const order = conversation
    ? `ORDER BY COALESCE(SUM(u."costUsd"), 0) DESC, SUM(COALESCE(u."inputTokens", 0) + COALESCE(u."outputTokens", 0)) DESC, "key"`
    : `ORDER BY "key"`;
  const rows = await db.read<
    Row & {
      replays: number | string;
      replayInputTokens: number | string;
      replayOutputTokens: number | string;
      replayCostUsd: number | string | null;
      unpricedReplays: number | string;
    }
  >(
    `SELECT u."key" AS "key",
       SUM(CASE WHEN u."source" = 0 THEN 1 ELSE 0 END) AS "turns", ${of(0, "inputTokens")} AS "inputTokens", ${of(0, "outputTokens")} AS "outputTokens",
       ${of(0, "cachedInputTokens")} AS "cachedInputTokens", ${costOf(0)} AS "costUsd",
       SUM(CASE WHEN u."source" = 0 AND u."costUsd" IS NULL THEN 1 ELSE 0 END) AS "unpricedTurns",
       SUM(CASE WHEN u."source" = 1 THEN 1 ELSE 0 END) AS "replays", ${of(1, "inputTokens")} AS "replayInputTokens", ${of(1, "outputTokens")} AS "replayOutputTokens",
       ${costOf(1)} AS "replayCostUsd",
       SUM(CASE WHEN u."source" = 1 AND u."costUsd" IS NULL AND (u."inputTokens" IS NOT NULL OR u."outputTokens" IS NOT NULL) THEN 1 ELSE 0 END) AS "unpricedReplays"
     FROM (
       SELECT 0 AS "source", ${keyOf("t")} AS "key", t."inputTokens", t."outputTokens", t."cachedInputTokens", t."costUsd"
       FROM "Turn" t WHERE t."createdAt" >= ? AND t."createdAt" < ?${turns.sql}
       UNION ALL
       SELECT 1, ${keyOf("r")}, r."inputTokens", r."outputTokens", NULL, r."costUsd"
       FROM "Replay" r WHERE r."createdAt" >= ? AND r."createdAt" < ? AND ${REPLAY_ENDED}${replays.sql}
     ) u
     GROUP BY u."key" ${order}${query.limit ? ` LIMIT ${Math.trunc(query.limit)}` : ""}`,
    query.from,
    query.to,
    ...turns.params,
    query.from,
    query.to,
    ...replays.params,
  );
  const labels = conversation
    ? await conversationLabels(
        db,
        rows.map((r) => Number(r.key)),
      )
    : new Map<number, string>();
  return rows.map((r) => ({
    key: String(r.key),
    label: conversation ? (labels.get(Number(r.key)) ?? null) : null,
    ...sums(r),
    replays: replaySums({
      replays: r.replays,
      inputTokens: r.replayInputTokens,
      outputTokens: r.replayOutputTokens,
      costUsd: r.replayCostUsd,
      unpricedReplays: r.unpricedReplays,
    }),
  }));
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

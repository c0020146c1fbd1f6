import { type BotScope, conversationScopeSql } from "./conversation-scope";
import type { Database } from "./database";
import { type SqlValue, sqlDate } from "./sql";

/**
 * The reads behind the inbox report (lib/api/reports): the conversations opened in a
 * range with the times that matter for each, and the resolve and handoff events of the
 * range per UTC day. Reads only; what the figures mean is decided one layer up.
 *
 * Where each fact is recorded: a conversation opens with its first `user` message
 * (`Message.sentAt`); the bot answers with `agent` messages, operators with `operator`
 * messages (`senderName` = their sign-in name); a resolve is the `done` envelope with
 * metadata `inbox.action = "resolve"` (from `operator:<name>`, lib/pipeline/conversation-status.ts),
 * a handoff the one with `handoff.action = "request"` (lib/pipeline/handoff.ts).
 */

/** Which conversations: the caller's bots, one bot, and those one operator handled (their sign-in name). */
export type ReportFilter = { bots?: BotScope; botId?: number; operatorName?: string; labelId?: number };

/** One conversation opened in range, with its first answers, first resolve and handoff count since it opened. */
export type OpenedConversation = {
  id: number;
  openedAt: Date;
  firstBotAt: Date | null;
  firstHumanAt: Date | null;
  /** Sign-in name of the operator who answered first. */
  firstHumanBy: string | null;
  firstResolvedAt: Date | null;
  /** The first resolve's envelope sender (`operator:<name>`). */
  firstResolvedBy: string | null;
  handoffs: number;
};

/** An action recorded in envelope metadata (`inbox.action`, `handoff.action`), on both databases. */
const action = (db: Database, key: "inbox" | "handoff", alias: string) =>
  db.dialect === "sqlite" ? `json_extract(${alias}."metadata", '$.${key}.action')` : `(${alias}."metadata" #>> '{${key},action}')`;

/**
 * The records (no message; always `done`) of one kind of change, on envelope alias `e`. No
 * condition on `status` here: per conversation the planner must take the
 * (conversationId, createdAt) index, not walk every done envelope since a time.
 */
const isResolve = (db: Database, alias = "e") => `${alias}."messageId" IS NULL AND ${action(db, "inbox", alias)} = 'resolve'`;
const isHandoff = (db: Database, alias = "e") => `${alias}."messageId" IS NULL AND ${action(db, "handoff", alias)} = 'request'`;

/** The UTC day of a timestamp column: SQLite stores Prisma's ISO text, PostgreSQL a UTC timestamp. */
const dayOf = (db: Database, column: string) => (db.dialect === "sqlite" ? `substr(${column}, 1, 10)` : `to_char(${column}, 'YYYY-MM-DD')`);

/** The filter's conditions on conversation alias `c`. */
function conversationFilter(db: Database, filter: ReportFilter): { sql: string; params: SqlValue[] } {
  const scope = conversationScopeSql(filter.bots, "c");
  let sql = scope.sql;
  const params: SqlValue[] = [...scope.params];
  if (filter.botId !== undefined) {
    sql += ` AND c."botId" = ?`;
    params.push(filter.botId);
  }
  if (filter.labelId !== undefined) {
    sql += ` AND EXISTS (SELECT 1 FROM "ConversationLabel" cl WHERE cl."conversationId" = c."id" AND cl."labelId" = ?)`;
    params.push(filter.labelId);
  }
  if (filter.operatorName !== undefined) {
    // Handled: the operator wrote in it or resolved it.
    sql += ` AND (EXISTS (SELECT 1 FROM "Message" hm WHERE hm."conversationId" = c."id" AND hm."senderKind" = 'operator' AND hm."senderName" = ?)
      OR EXISTS (SELECT 1 FROM "Envelope" he WHERE he."conversationId" = c."id" AND he."from" = ? AND ${isResolve(db, "he")}))`;
    params.push(filter.operatorName, `operator:${filter.operatorName}`);
  }
  return { sql, params };
}

type OpenedRow = {
  id: number | string;
  openedAt: Date | string;
  firstBotAt: Date | string | null;
  firstHumanAt: Date | string | null;
  firstHumanBy: string | null;
  firstResolvedAt: Date | string | null;
  firstResolvedBy: string | null;
  handoffs: number | string;
};

/**
 * The conversations whose first user message falls in [from, to), oldest first, at most
 * `limit`. Only conversations active since `from` are looked at (`lastMessageAt`,
 * indexed, set by every message); each one's times are index lookups on
 * Message(conversationId, sentAt, id) and Envelope(conversationId, createdAt).
 */
export async function openedConversations(
  db: Database,
  range: { from: Date; to: Date; limit: number },
  filter: ReportFilter,
): Promise<OpenedConversation[]> {
  const where = conversationFilter(db, filter);
  const first = (kind: "agent" | "operator", column: string) =>
    `(SELECT m.${column} FROM "Message" m WHERE m."conversationId" = o."id" AND m."senderKind" = '${kind}' AND m."sentAt" >= o."openedAt"
      ORDER BY m."sentAt", m."id" LIMIT 1)`;
  const resolve = (column: string) =>
    `(SELECT e.${column} FROM "Envelope" e WHERE e."conversationId" = o."id" AND ${isResolve(db)} AND e."createdAt" >= o."openedAt"
      ORDER BY e."createdAt", e."id" LIMIT 1)`;
  const rows = await db.read<OpenedRow>(
    `WITH o AS MATERIALIZED (
       SELECT c."id" AS "id",
         (SELECT m."sentAt" FROM "Message" m WHERE m."conversationId" = c."id" AND m."senderKind" = 'user' ORDER BY m."sentAt", m."id" LIMIT 1) AS "openedAt"
       FROM "Conversation" c
       WHERE c."lastMessageAt" >= ? AND ${where.sql}
     )
     SELECT o."id" AS "id", o."openedAt" AS "openedAt",
       ${first("agent", `"sentAt"`)} AS "firstBotAt",
       ${first("operator", `"sentAt"`)} AS "firstHumanAt",
       ${first("operator", `"senderName"`)} AS "firstHumanBy",
       ${resolve(`"createdAt"`)} AS "firstResolvedAt",
       ${resolve(`"from"`)} AS "firstResolvedBy",
       (SELECT COUNT(*) FROM "Envelope" e WHERE e."conversationId" = o."id" AND ${isHandoff(db)} AND e."createdAt" >= o."openedAt") AS "handoffs"
     FROM o WHERE o."openedAt" >= ? AND o."openedAt" < ? ORDER BY o."openedAt", o."id" LIMIT ?`,
    range.from,
    ...where.params,
    range.from,
    range.to,
    range.limit,
  );
  return rows.map((r) => ({
    id: Number(r.id),
    openedAt: sqlDate(r.openedAt)!,
    firstBotAt: sqlDate(r.firstBotAt),
    firstHumanAt: sqlDate(r.firstHumanAt),
    firstHumanBy: r.firstHumanBy,
    firstResolvedAt: sqlDate(r.firstResolvedAt),
    firstResolvedBy: r.firstResolvedBy,
    handoffs: Number(r.handoffs),
  }));
}

/** Resolve and handoff events of one UTC day. */
export type DayEvents = { day: string; resolved: number; handoffs: number };

/**
 * Resolves and handoff requests recorded in [from, to), per UTC day (days without any
 * left out). With an operator, only their resolves count (handoffs: of the conversations
 * they handled). Index-backed on `Envelope(status, createdAt)`.
 */
export async function eventsByDay(db: Database, range: { from: Date; to: Date }, filter: ReportFilter): Promise<DayEvents[]> {
  const where = conversationFilter(db, filter);
  const byOperator = filter.operatorName !== undefined ? ` AND e."from" = ?` : "";
  const rows = await db.read<{ day: string; resolved: number | string | null; handoffs: number | string | null }>(
    `SELECT ${dayOf(db, `e."createdAt"`)} AS "day",
       SUM(CASE WHEN ${isResolve(db)}${byOperator} THEN 1 ELSE 0 END) AS "resolved",
       SUM(CASE WHEN ${isHandoff(db)} THEN 1 ELSE 0 END) AS "handoffs"
     FROM "Envelope" e JOIN "Conversation" c ON c."id" = e."conversationId"
     WHERE e."status" = 'done' AND e."createdAt" >= ? AND e."createdAt" < ? AND e."messageId" IS NULL
       AND (${action(db, "inbox", "e")} = 'resolve' OR ${action(db, "handoff", "e")} = 'request') AND ${where.sql}
     GROUP BY ${dayOf(db, `e."createdAt"`)} ORDER BY "day"`,
    ...(filter.operatorName !== undefined ? [`operator:${filter.operatorName}`] : []),
    range.from,
    range.to,
    ...where.params,
  );
  return rows.map((r) => ({ day: r.day, resolved: Number(r.resolved ?? 0), handoffs: Number(r.handoffs ?? 0) }));
}

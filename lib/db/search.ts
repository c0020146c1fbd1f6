import type { Database } from "./database";
import { fts5Match, HIT_END, HIT_START } from "../search/query";
import { sqlDate } from "./sql";

export type SearchRow = { messageId: number; conversationId: number; snippet: string; sentAt: Date; senderName: string | null; conversationTitle: string | null };

/**
 * Full-text search over message text, best matches first: SQLite's FTS5 index
 * (bm25) or PostgreSQL's GIN index on to_tsvector('simple', text) (ts_rank).
 * Terms come from searchTerms() (words only, quoted): user text never reaches
 * the query syntax. Snippets carry HIT_START/HIT_END around each hit.
 */
export async function searchMessages(db: Database, terms: string[], take: number): Promise<SearchRow[]> {
  if (terms.length === 0) return [];
  if (db.dialect === "sqlite") {
    const rows = await db.read<{ messageId: number; conversationId: number; snippet: string; sentAt: unknown; senderName: string | null; conversationTitle: string | null }>(
      `SELECT m."id" AS "messageId", m."conversationId", m."sentAt", m."senderName", c."title" AS "conversationTitle",
         snippet("MessageSearch", 0, ?, ?, '…', 16) AS "snippet"
       FROM "MessageSearch" s JOIN "Message" m ON m."id" = s.rowid JOIN "Conversation" c ON c."id" = m."conversationId"
       WHERE "MessageSearch" MATCH ? ORDER BY s.rank, m."id" DESC LIMIT ?`,
      HIT_START, HIT_END, fts5Match(terms), take,
    );
    return rows.map((r) => ({ ...r, sentAt: sqlDate(r.sentAt as string)! }));
  }
  // The best `take` by rank first (index scan), headlines only for those.
  const rows = await db.read<SearchRow>(
    `WITH q AS (SELECT plainto_tsquery('simple', ?) AS query),
     hits AS (
       SELECT m."id", m."conversationId", m."sentAt", m."senderName", m."text", ts_rank(to_tsvector('simple', m."text"), q.query) AS rank
       FROM "Message" m, q WHERE to_tsvector('simple', m."text") @@ q.query ORDER BY rank DESC, m."id" DESC LIMIT ?
     )
     SELECT h."id" AS "messageId", h."conversationId", h."sentAt", h."senderName", c."title" AS "conversationTitle",
       ts_headline('simple', h."text", q.query, ?) AS "snippet"
     FROM hits h JOIN "Conversation" c ON c."id" = h."conversationId", q ORDER BY h.rank DESC, h."id" DESC`,
    terms.join(" "), take, `StartSel=${HIT_START}, StopSel=${HIT_END}, MaxWords=24, MinWords=8, MaxFragments=2, FragmentDelimiter=" … "`,
  );
  return rows.map((r) => ({ ...r, messageId: Number(r.messageId), conversationId: Number(r.conversationId) }));
}

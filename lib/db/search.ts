import type { Database } from "./database";
import { fts5Match, HIT_END, HIT_START, likeContaining, splitTerms, substringSnippet } from "../search/query";
import { type SqlValue, sqlDate } from "./sql";

export type SearchRow = {
  messageId: number;
  conversationId: number;
  snippet: string;
  sentAt: Date;
  deletedAt: Date | null;
  senderName: string | null;
  senderKind: string;
  conversationTitle: string | null;
};

/**
 * Full-text search over message text, best matches first among the newest
 * 2,000 that match: SQLite's FTS5 index (bm25) or PostgreSQL's GIN index on
 * to_tsvector('simple', text) (ts_rank).
 * Terms come from searchTerms() (words only, quoted): user text never reaches
 * the query syntax. Snippets carry HIT_START/HIT_END around each hit.
 */
/** How many of the newest matches are ranked (see below). */
const RANKED = 2_000;

export async function searchMessages(db: Database, terms: string[], take: number): Promise<SearchRow[]> {
  if (terms.length === 0) return [];
  const { words, substrings } = splitTerms(terms);
  if (substrings.length > 0) return searchSubstrings(db, words, substrings, take);
  if (db.dialect === "sqlite") {
    const match = fts5Match(terms);
    // Ranked among the newest RANKED matches: FTS5 walks a term's doclist by rowid
    // cheaply, but bm25 over every match of a common word (10% of a million
    // messages) would cost seconds. Snippets are made for the winners only.
    const best = await db.read<{ id: number }>(
      `SELECT "id" FROM (SELECT rowid AS "id", bm25("MessageSearch") AS "score" FROM "MessageSearch" WHERE "MessageSearch" MATCH ? ORDER BY rowid DESC LIMIT ?)
       ORDER BY "score", "id" DESC LIMIT ?`,
      match,
      RANKED,
      take,
    );
    if (best.length === 0) return [];
    const ids = best.map((r) => Number(r.id));
    const rows = await db.read<{
      messageId: number;
      conversationId: number;
      snippet: string;
      sentAt: unknown;
      deletedAt: unknown;
      senderName: string | null;
      senderKind: string;
      conversationTitle: string | null;
    }>(
      `SELECT m."id" AS "messageId", m."conversationId", m."sentAt", m."deletedAt", m."senderName", m."senderKind", c."title" AS "conversationTitle",
         snippet("MessageSearch", 0, ?, ?, '…', 16) AS "snippet"
       FROM "MessageSearch" s JOIN "Message" m ON m."id" = s.rowid JOIN "Conversation" c ON c."id" = m."conversationId"
       WHERE "MessageSearch" MATCH ? AND s.rowid IN (${ids.map(() => "?").join(", ")})`,
      HIT_START,
      HIT_END,
      match,
      ...ids,
    );
    const order = new Map(ids.map((id, i) => [id, i]));
    return rows
      .sort((a, b) => order.get(Number(a.messageId))! - order.get(Number(b.messageId))!)
      .map((r) => ({ ...r, sentAt: sqlDate(r.sentAt as string)!, deletedAt: sqlDate(r.deletedAt as string | null) }));
  }
  // The best `take` by rank first (index scan), headlines only for those.
  const rows = await db.read<SearchRow>(
    `WITH q AS (SELECT plainto_tsquery('simple', ?) AS query),
     newest AS (SELECT m."id" FROM "Message" m, q WHERE to_tsvector('simple', m."text") @@ q.query ORDER BY m."id" DESC LIMIT ?),
     hits AS (
       SELECT m."id", m."conversationId", m."sentAt", m."deletedAt", m."senderName", m."senderKind", m."text", ts_rank(to_tsvector('simple', m."text"), q.query) AS rank
       FROM newest n JOIN "Message" m ON m."id" = n."id", q ORDER BY rank DESC, m."id" DESC LIMIT ?
     )
     SELECT h."id" AS "messageId", h."conversationId", h."sentAt", h."deletedAt", h."senderName", h."senderKind", c."title" AS "conversationTitle",
       ts_headline('simple', h."text", q.query, ?) AS "snippet"
     FROM hits h JOIN "Conversation" c ON c."id" = h."conversationId", q ORDER BY h.rank DESC, h."id" DESC`,
    terms.join(" "),
    RANKED,
    take,
    `StartSel=${HIT_START}, StopSel=${HIT_END}, MaxWords=24, MinWords=8, MaxFragments=2, FragmentDelimiter=" … "`,
  );
  return rows.map((r) => ({ ...r, messageId: Number(r.messageId), conversationId: Number(r.conversationId) }));
}

/**
 * Terms in scripts written without spaces (lib/search/query.ts) are matched as
 * substrings, newest first: LIKE over the text, walking the id index backwards
 * and stopping at `take` hits (a term that is rare reads the whole table; about
 * 0.1 s per million messages here). Words of the same query still use the
 * full-text index. No ranking: every hit contains every term.
 */
async function searchSubstrings(db: Database, words: string[], substrings: string[], take: number): Promise<SearchRow[]> {
  const like = db.dialect === "sqlite" ? "LIKE" : "ILIKE";
  const conditions = substrings.map(() => `m."text" ${like} ? ESCAPE '\\'`);
  const params: SqlValue[] = substrings.map(likeContaining);
  if (words.length > 0 && db.dialect === "sqlite") {
    conditions.push(`m."id" IN (SELECT rowid FROM "MessageSearch" WHERE "MessageSearch" MATCH ?)`);
    params.push(fts5Match(words));
  } else if (words.length > 0) {
    conditions.push(`to_tsvector('simple', m."text") @@ plainto_tsquery('simple', ?)`);
    params.push(words.join(" "));
  }
  const rows = await db.read<Omit<SearchRow, "snippet" | "sentAt" | "deletedAt"> & { text: string; sentAt: unknown; deletedAt: unknown }>(
    `SELECT m."id" AS "messageId", m."conversationId", m."sentAt", m."deletedAt", m."senderName", m."senderKind", m."text", c."title" AS "conversationTitle"
     FROM "Message" m JOIN "Conversation" c ON c."id" = m."conversationId"
     WHERE ${conditions.join(" AND ")} ORDER BY m."id" DESC LIMIT ?`,
    ...params,
    take,
  );
  return rows.map(({ text, ...r }) => ({
    ...r,
    messageId: Number(r.messageId),
    conversationId: Number(r.conversationId),
    snippet: substringSnippet(text, [...substrings, ...words]),
    sentAt: sqlDate(r.sentAt as Date | string)!,
    deletedAt: sqlDate(r.deletedAt as Date | string | null),
  }));
}

import { type BotScope, conversationScopeSql } from "./conversation-scope";
import type { Database } from "./database";
import {
  fts5Match,
  gramArray,
  HIT_END,
  HIT_START,
  type SearchTerm,
  substringSnippet,
  trigramMatch,
  tsQuery,
  unspacedRegex,
} from "./search-query";
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
  channel: string;
};

/**
 * What a search is narrowed to; every filter set must hold. `channel` is the
 * platform (every bot on it), `botId` one bot.
 */
export type SearchFilters = {
  conversationId?: number;
  senderKinds?: string[];
  channel?: string;
  botId?: number;
  /** The caller's bots (lib/auth/bot-scope.ts): only their conversations; null / absent: every bot. */
  bots?: BotScope;
  /** Sent at or after. */
  from?: Date;
  /** Sent before. */
  to?: Date;
};

export type SearchPage = { rows: SearchRow[]; complete: boolean };

/** How many of the newest matches are ranked (see below). */
const RANKED = 2_000;

type Row = Omit<SearchRow, "sentAt" | "deletedAt"> & { sentAt: unknown; deletedAt: unknown };

const COLUMNS = `m."id" AS "messageId", m."conversationId", m."sentAt", m."deletedAt", m."senderName", m."senderKind", c."title" AS "conversationTitle", c."channel"`;

/** The filters as conditions on `m` (Message) and `c` (its Conversation). */
function filterSql(filters: SearchFilters): { where: string; params: SqlValue[] } {
  const conditions: string[] = [];
  const params: SqlValue[] = [];
  if (filters.senderKinds?.length) {
    conditions.push(`m."senderKind" IN (${filters.senderKinds.map(() => "?").join(", ")})`);
    params.push(...filters.senderKinds);
  }
  placeFilters(filters, { row: "m", time: `m."sentAt"` }, conditions, params);
  return { where: conditions.map((c) => ` AND ${c}`).join(""), params };
}

/**
 * Where and when, for messages and notes alike: conversation, platform (every bot on it),
 * one bot, the caller's bots, and the time range on `at.time`. `at.row` holds a
 * "conversationId"; `c` is its Conversation.
 */
function placeFilters(filters: SearchFilters, at: { row: string; time: string }, conditions: string[], params: SqlValue[]) {
  if (filters.conversationId !== undefined) {
    conditions.push(`${at.row}."conversationId" = ?`);
    params.push(filters.conversationId);
  }
  if (filters.channel !== undefined) {
    // The environment's bot is "telegram", the others "telegram-<id>".
    conditions.push(`(c."channel" = ? OR c."channel" LIKE ?)`);
    params.push(filters.channel, `${filters.channel}-%`);
  }
  if (filters.botId !== undefined) {
    conditions.push(`c."botId" = ?`);
    params.push(filters.botId);
  }
  if (filters.bots) {
    const scope = conversationScopeSql(filters.bots, "c");
    conditions.push(scope.sql);
    params.push(...scope.params);
  }
  if (filters.from) {
    conditions.push(`${at.time} >= ?`);
    params.push(filters.from);
  }
  if (filters.to) {
    conditions.push(`${at.time} < ?`);
    params.push(filters.to);
  }
}

const typed = (r: Row): SearchRow => ({
  ...r,
  messageId: Number(r.messageId),
  conversationId: Number(r.conversationId),
  sentAt: sqlDate(r.sentAt as Date | string)!,
  deletedAt: sqlDate(r.deletedAt as Date | string | null),
});

/**
 * Search over message text, on db.readBounded: off the request thread (SQLite)
 * or on at most two connections (PostgreSQL), stopped at `deadline`.
 * - Words only: best matches first (bm25 on SQLite's FTS5 index, ts_rank on
 *   PostgreSQL's GIN index of to_tsvector('simple', text)) among the newest
 *   2,000 matches that pass the filters, each word a prefix (see SearchTerm).
 * - With substrings (scripts written without spaces): newest first, from the
 *   n-gram indexes (searchSubstrings).
 * Terms come from searchTerms() (letters and digits only, quoted): user text
 * never reaches the query syntax. Snippets carry HIT_START/HIT_END around hits.
 */
export async function searchMessages(
  db: Database,
  terms: SearchTerm[],
  filters: SearchFilters,
  take: number,
  deadline: number,
): Promise<SearchPage> {
  if (terms.length === 0) return { rows: [], complete: true };
  const words = terms.flatMap((t) => (t.kind === "word" ? [t] : []));
  const substrings = terms.flatMap((t) => (t.kind === "substring" ? [t.text] : []));
  if (substrings.length > 0) return searchSubstrings(db, words, substrings, filters, take, deadline);
  const filter = filterSql(filters);
  if (db.dialect === "sqlite") {
    const match = fts5Match(words);
    // Ranked among the newest RANKED matches: FTS5 walks a term's doclist by rowid
    // cheaply, but bm25 over every match of a common word (10% of a million
    // messages) would cost seconds. Snippets are made for the winners only.
    // The filters are checked per match (EXISTS), so the index stays the outer loop
    // that bm25() and the rowid order need.
    const narrowed = filter.where
      ? ` AND EXISTS (SELECT 1 FROM "Message" m JOIN "Conversation" c ON c."id" = m."conversationId" WHERE m."id" = "MessageSearch".rowid${filter.where})`
      : "";
    const best = await db.readBounded<{ id: number }>(
      `SELECT "id" FROM (
         SELECT rowid AS "id", bm25("MessageSearch") AS "score" FROM "MessageSearch"
         WHERE "MessageSearch" MATCH ? AND within_deadline()${narrowed} ORDER BY rowid DESC LIMIT ?)
       ORDER BY "score", "id" DESC LIMIT ?`,
      [match, ...filter.params, RANKED, take],
      deadline,
    );
    if (best.rows.length === 0) return { rows: [], complete: best.complete };
    const ids = best.rows.map((r) => Number(r.id));
    const found = await db.readBounded<Row>(
      // The snippet per message in a subquery: joined to Message, SQLite could let the
      // index's other matches through when the list holds one id.
      `SELECT ${COLUMNS},
         (SELECT snippet("MessageSearch", 0, ?, ?, '…', 16) FROM "MessageSearch" WHERE "MessageSearch" MATCH ? AND rowid = m."id") AS "snippet"
       FROM "Message" m JOIN "Conversation" c ON c."id" = m."conversationId"
       WHERE m."id" IN (${ids.map(() => "?").join(", ")})`,
      [HIT_START, HIT_END, match, ...ids],
      deadline,
    );
    const order = new Map(ids.map((id, i) => [id, i]));
    const rows = found.rows.map(typed).sort((a, b) => order.get(a.messageId)! - order.get(b.messageId)!);
    return { rows, complete: best.complete && found.complete };
  }
  // The best `take` by rank first (index scan), headlines only for those.
  const { rows, complete } = await db.readBounded<Row>(
    `WITH q AS (SELECT to_tsquery('simple', ?) AS query),
     newest AS (
       SELECT m."id" FROM "Message" m JOIN "Conversation" c ON c."id" = m."conversationId", q
       WHERE to_tsvector('simple', m."text") @@ q.query${filter.where} ORDER BY m."id" DESC LIMIT ?
     ),
     hits AS (
       SELECT m."id", m."conversationId", m."sentAt", m."deletedAt", m."senderName", m."senderKind", m."text", ts_rank(to_tsvector('simple', m."text"), q.query) AS rank
       FROM newest n JOIN "Message" m ON m."id" = n."id", q ORDER BY rank DESC, m."id" DESC LIMIT ?
     )
     SELECT h."id" AS "messageId", h."conversationId", h."sentAt", h."deletedAt", h."senderName", h."senderKind", c."title" AS "conversationTitle", c."channel",
       ts_headline('simple', h."text", q.query, ?) AS "snippet"
     FROM hits h JOIN "Conversation" c ON c."id" = h."conversationId", q ORDER BY h.rank DESC, h."id" DESC`,
    [
      tsQuery(words),
      ...filter.params,
      RANKED,
      take,
      `StartSel=${HIT_START}, StopSel=${HIT_END}, MaxWords=24, MinWords=8, MaxFragments=2, FragmentDelimiter=" … "`,
    ],
    deadline,
  );
  return { rows: rows.map(typed), complete };
}

/**
 * Terms in scripts written without spaces (lib/db/search-query.ts) are matched as
 * substrings, newest first, every term in the text (checked on the text itself,
 * case-folded), and the words of the same query on the full-text index. The
 * candidates come from an n-gram index of the messages holding such scripts
 * (migration 20261125103000_message_substring_search): on SQLite an FTS5
 * trigram index (a substring of one or two characters has no trigram: those
 * read the messages newest first until `take` hits or the deadline), on
 * PostgreSQL a GIN index of each message's characters and pairs of characters.
 * No ranking: every hit contains every term.
 */
async function searchSubstrings(
  db: Database,
  words: { parts: string[] }[],
  substrings: string[],
  filters: SearchFilters,
  take: number,
  deadline: number,
): Promise<SearchPage> {
  const filter = filterSql(filters);
  const params: SqlValue[] = [];
  let sql: string;
  if (db.dialect === "sqlite") {
    const trigrams = trigramMatch(substrings);
    const contains = substrings.map(() => ` AND instr(lower(m."text"), ?) > 0`).join("");
    const wordMatch = words.length > 0 ? ` AND m."id" IN (SELECT rowid FROM "MessageSearch" WHERE "MessageSearch" MATCH ?)` : "";
    const from = trigrams
      ? `"MessageTrigram" JOIN "Message" m ON m."id" = "MessageTrigram".rowid JOIN "Conversation" c ON c."id" = m."conversationId" WHERE "MessageTrigram" MATCH ? AND`
      : `"Message" m JOIN "Conversation" c ON c."id" = m."conversationId" WHERE`;
    if (trigrams) params.push(trigrams);
    // In the index's own rowid order: it stops at `take` hits without sorting every candidate.
    const order = trigrams ? `"MessageTrigram".rowid` : `m."id"`;
    sql = `SELECT ${COLUMNS}, m."text" FROM ${from} within_deadline()${contains}${wordMatch}${filter.where} ORDER BY ${order} DESC LIMIT ?`;
    params.push(...substrings);
    if (words.length > 0) params.push(fts5Match(words));
  } else {
    // The candidates first (MATERIALIZED: from the n-gram index, never a walk of
    // every message newest first); the predicate repeats the partial index's.
    const contains = substrings.map(() => ` AND strpos(lower(m."text"), ?) > 0`).join("");
    const wordMatch = words.length > 0 ? ` AND to_tsvector('simple', m."text") @@ to_tsquery('simple', ?)` : "";
    sql = `WITH candidates AS MATERIALIZED (
         SELECT "id" FROM "Message" WHERE "message_grams"("text") @> CAST(? AS text[]) AND "text" ~ '${unspacedRegex()}'
       )
       SELECT ${COLUMNS}, m."text" FROM candidates k JOIN "Message" m ON m."id" = k."id" JOIN "Conversation" c ON c."id" = m."conversationId"
       WHERE TRUE${contains}${wordMatch}${filter.where} ORDER BY m."id" DESC LIMIT ?`;
    params.push(gramArray(substrings), ...substrings);
    if (words.length > 0) params.push(tsQuery(words));
  }
  const { rows, complete } = await db.readBounded<Row & { text: string }>(sql, [...params, ...filter.params, take], deadline);
  const marked = [...substrings, ...words.flatMap((w) => w.parts)];
  return {
    rows: rows.map(({ text, ...r }) => ({ ...typed({ ...r, snippet: "" }), snippet: substringSnippet(text, marked) })),
    complete,
  };
}

export type NoteSearchRow = {
  noteId: number;
  conversationId: number;
  snippet: string;
  createdAt: Date;
  operatorName: string;
  conversationTitle: string | null;
  channel: string;
};

/**
 * Operators' internal notes holding every term (each word's parts as written,
 * case-folded, anywhere in the note), newest first. Notes are few next to
 * messages and have no index of their own: a scan, bounded by `deadline` like
 * the message search. For the console's search only: nothing the model calls
 * reads notes. Sender filters other than "operator" leave notes out (operators write them).
 */
export async function searchNotes(
  db: Database,
  terms: SearchTerm[],
  filters: SearchFilters,
  take: number,
  deadline: number,
): Promise<{ rows: NoteSearchRow[]; complete: boolean }> {
  const needles = terms.flatMap((t) => (t.kind === "word" ? t.parts : [t.text]));
  if (needles.length === 0) return { rows: [], complete: true };
  if (filters.senderKinds?.length && !filters.senderKinds.includes("operator")) return { rows: [], complete: true };
  const has = db.dialect === "sqlite" ? `instr(lower(n."text"), ?) > 0` : `strpos(lower(n."text"), ?) > 0`;
  const conditions: string[] = needles.map(() => has);
  const params: SqlValue[] = [...needles];
  placeFilters(filters, { row: "n", time: `n."createdAt"` }, conditions, params);
  const { rows, complete } = await db.readBounded<{
    noteId: number;
    conversationId: number;
    createdAt: Date | string;
    operatorName: string;
    conversationTitle: string | null;
    channel: string;
    text: string;
  }>(
    `SELECT n."id" AS "noteId", n."conversationId", n."createdAt", n."operatorName", c."title" AS "conversationTitle", c."channel", n."text"
     FROM "ConversationNote" n JOIN "Conversation" c ON c."id" = n."conversationId"
     WHERE ${db.dialect === "sqlite" ? "within_deadline() AND " : ""}${conditions.join(" AND ")}
     ORDER BY n."id" DESC LIMIT ?`,
    [...params, take],
    deadline,
  );
  return {
    rows: rows.map(({ text, ...r }) => ({
      ...r,
      noteId: Number(r.noteId),
      conversationId: Number(r.conversationId),
      createdAt: sqlDate(r.createdAt)!,
      snippet: substringSnippet(text, needles),
    })),
    complete,
  };
}

import { recordIdParam } from "../record-id";
import type { BotScope } from "../db/conversation-scope";
import { attachmentViewsOf } from "../media/attachment-views";
import type { AttachmentView } from "../media/types";
import { z } from "zod";
import type { Database } from "../db/database";
import { searchMessages, searchNotes } from "../db/search";
import { longTerm, MAX_TERM_LENGTH, searchTerms, snippetMarkup } from "../db/search-query";

/** How long one search may take, its wait for a turn included; then it answers what it found, marked incomplete. */
export const SEARCH_TIME_LIMIT_MS = 3_000;

export const SENDER_KINDS = ["user", "agent", "operator", "system"] as const;

const instant = z.iso.datetime({ offset: true }).transform((s) => new Date(s));

export const searchQuerySchema = z.object({
  q: z
    .string()
    .max(500, "at most 500 characters")
    .default("")
    .superRefine((q, ctx) => {
      const long = longTerm(q);
      if (long)
        ctx.addIssue({
          code: "custom",
          message: `a search word is at most ${MAX_TERM_LENGTH} characters ("${[...long].slice(0, 12).join("")}…" has ${[...long].length}): search for a shorter part of it`,
        });
    }),
  take: z.coerce.number().int().min(1).max(100).default(20),
  /** Only this conversation's messages. */
  conversationId: recordIdParam.optional(),
  /** Only messages by these kinds of sender, comma-separated: user, agent, operator, system. */
  sender: z
    .string()
    .optional()
    .transform((s) => (s ? [...new Set(s.split(",").map((k) => k.trim()))].filter(Boolean) : undefined))
    .pipe(z.array(z.enum(SENDER_KINDS)).optional()),
  /** Only conversations on this platform (every bot on it). */
  channel: z.enum(["telegram", "line"]).optional(),
  /** Only this bot's conversations (GET /api/v1/bots). */
  botId: recordIdParam.optional(),
  /** Sent at or after this instant (ISO 8601 with a zone). */
  from: instant.optional(),
  /** Sent before this instant. */
  to: instant.optional(),
});

export type SearchResult = {
  messageId: number;
  conversationId: number;
  snippet: string;
  sentAt: string;
  deletedAt: string | null;
  senderName: string | null;
  senderKind: string;
  conversationTitle: string | null;
  channel: string;
  attachments: AttachmentView[];
};

/** An operators' note that matches: shown apart from the messages, marked as a note. */
export type NoteResult = {
  noteId: number;
  conversationId: number;
  snippet: string;
  createdAt: string;
  operatorName: string;
  conversationTitle: string | null;
  channel: string;
};

/**
 * What was said, found: the best-matching messages with a snippet each. The
 * snippet is HTML-escaped text whose only markup is <mark> around the hits.
 * Text with no words in it (`"`, `AND(`) finds nothing rather than failing.
 * `incomplete`: the search stopped at its time limit; `results` are what it
 * found by then (perhaps none), so narrowing the search may find more.
 * `notes`: the operators' internal notes that match, newest first (this is the
 * console's search: no model tool calls it, so notes stay out of every prompt).
 */
export async function searchMessageText(
  db: Database,
  query: z.infer<typeof searchQuerySchema>,
  /** The caller's bots (lib/auth/bot-scope.ts); absent: every bot. */
  bots?: BotScope,
): Promise<{ results: SearchResult[]; notes: NoteResult[]; incomplete: boolean }> {
  const filters = {
    bots,
    conversationId: query.conversationId,
    senderKinds: query.sender,
    channel: query.channel,
    botId: query.botId,
    from: query.from,
    to: query.to,
  };
  const terms = searchTerms(query.q);
  const deadline = Date.now() + SEARCH_TIME_LIMIT_MS;
  const [{ rows, complete }, notes] = await Promise.all([
    searchMessages(db, terms, filters, query.take, deadline),
    searchNotes(db, terms, filters, query.take, deadline),
  ]);
  const attachments = await attachmentViewsOf(
    db,
    rows.map((r) => r.messageId),
  );
  return {
    incomplete: !complete || !notes.complete,
    notes: notes.rows.map((n) => ({ ...n, snippet: snippetMarkup(n.snippet), createdAt: n.createdAt.toISOString() })),
    results: rows.map((r) => ({
      messageId: r.messageId,
      conversationId: r.conversationId,
      snippet: snippetMarkup(r.snippet),
      sentAt: r.sentAt.toISOString(),
      deletedAt: r.deletedAt ? r.deletedAt.toISOString() : null,
      senderName: r.senderName,
      senderKind: r.senderKind,
      conversationTitle: r.conversationTitle,
      channel: r.channel,
      attachments: attachments.get(r.messageId) ?? [],
    })),
  };
}

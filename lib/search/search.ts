import { attachmentViewsOf } from "../media/attachment-views";
import type { AttachmentView } from "../media/types";
import { z } from "zod";
import type { Database } from "../db/database";
import { searchMessages } from "../db/search";
import { longTerm, MAX_TERM_LENGTH, searchTerms, snippetMarkup } from "./query";

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
  conversationId: z.coerce.number().int().positive().optional(),
  /** Only messages by these kinds of sender, comma-separated: user, agent, operator, system. */
  sender: z
    .string()
    .optional()
    .transform((s) => (s ? [...new Set(s.split(",").map((k) => k.trim()))].filter(Boolean) : undefined))
    .pipe(z.array(z.enum(SENDER_KINDS)).optional()),
  /** Only conversations on this platform (until bots are records, the bot). */
  channel: z.enum(["telegram", "line"]).optional(),
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

/**
 * What was said, found: the best-matching messages with a snippet each. The
 * snippet is HTML-escaped text whose only markup is <mark> around the hits.
 * Text with no words in it (`"`, `AND(`) finds nothing rather than failing.
 * `incomplete`: the search stopped at its time limit; `results` are what it
 * found by then (perhaps none), so narrowing the search may find more.
 */
export async function searchMessageText(
  db: Database,
  query: z.infer<typeof searchQuerySchema>,
): Promise<{ results: SearchResult[]; incomplete: boolean }> {
  const filters = {
    conversationId: query.conversationId,
    senderKinds: query.sender,
    channel: query.channel,
    from: query.from,
    to: query.to,
  };
  const { rows, complete } = await searchMessages(db, searchTerms(query.q), filters, query.take, Date.now() + SEARCH_TIME_LIMIT_MS);
  const attachments = await attachmentViewsOf(
    db,
    rows.map((r) => r.messageId),
  );
  return {
    incomplete: !complete,
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

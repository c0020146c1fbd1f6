import { z } from "zod";
import type { Database } from "../db/database";
import { searchMessages } from "../db/search";
import { searchTerms, snippetMarkup } from "./query";

export const searchQuerySchema = z.object({
  q: z.string().max(500, "at most 500 characters").default(""),
  take: z.coerce.number().int().min(1).max(100).default(20),
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
};

/**
 * What was said, found: the best-matching messages with a snippet each. The
 * snippet is HTML-escaped text whose only markup is <mark> around the hits.
 * Text with no words in it (`"`, `AND(`) finds nothing rather than failing.
 */
export async function searchMessageText(db: Database, query: z.infer<typeof searchQuerySchema>): Promise<{ results: SearchResult[] }> {
  const rows = await searchMessages(db, searchTerms(query.q), query.take);
  return {
    results: rows.map((r) => ({
      messageId: r.messageId,
      conversationId: r.conversationId,
      snippet: snippetMarkup(r.snippet),
      sentAt: r.sentAt.toISOString(),
      deletedAt: r.deletedAt ? r.deletedAt.toISOString() : null,
      senderName: r.senderName,
      senderKind: r.senderKind,
      conversationTitle: r.conversationTitle,
    })),
  };
}

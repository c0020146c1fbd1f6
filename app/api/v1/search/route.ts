import { searchQuerySchema, searchResponse } from "@/lib/api/live";
import { withOperator } from "@/lib/server/with-operator";
import { jsonOf } from "@/lib/http/respond";
import { searchMessageText } from "@/lib/search/search";

export const dynamic = "force-dynamic";

/** Full-text search over message text: ?q=words → { results: [{ messageId, conversationId, snippet, sentAt, … }] }. */
export const GET = withOperator(
  async ({ request, ctx, caller }) => {
    const query = searchQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
    return jsonOf(searchResponse, await searchMessageText(ctx.db, query, caller.bots));
  },
  { role: "agent" },
);

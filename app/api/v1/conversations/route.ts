import { conversationListQuery, conversationListResponse } from "@/lib/api/conversations/schema";
import { listConversations } from "@/lib/api/conversations/list-conversations";
import { withOperator } from "@/lib/server/with-operator";
import { jsonOf } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** One inbox view (?view=, ?sort=, ?search=, ?botId=) with the counts of every view and the names of the caller's bots. */
export const GET = withOperator(
  async ({ request, ctx, caller }) => {
    const params = conversationListQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
    return jsonOf(conversationListResponse, await listConversations(ctx.db, params, caller));
  },
  { role: "agent" },
);

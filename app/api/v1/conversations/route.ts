import { conversationListQuery, conversationListResponse } from "@/lib/api/conversations";
import { countInboxViews, listConversations } from "@/lib/db/conversations";
import { withOperator } from "@/lib/http/api";
import { jsonOf } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** One inbox view (?view=, ?sort=, ?search=) with the counts of every view. */
export const GET = withOperator(async ({ request, ctx, caller }) => {
  const params = conversationListQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
  const me = caller.operator.id;
  const [conversations, counts] = await Promise.all([listConversations(ctx.db, { ...params, me }), countInboxViews(ctx.db, me)]);
  return jsonOf(conversationListResponse, { conversations, counts });
});

import { conversationListQuery, conversationListResponse } from "@/lib/api/conversations";
import { listConversations } from "@/lib/db/conversations";
import { withOperator } from "@/lib/http/api";
import { jsonOf } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

export const GET = withOperator(async ({ request, ctx }) => {
  const params = conversationListQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
  return jsonOf(conversationListResponse, { conversations: await listConversations(ctx.db, params) });
});

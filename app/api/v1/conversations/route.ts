import { conversationListQuery, conversationListResponse } from "@/lib/api/conversations";
import { listBotLabels } from "@/lib/db/bots";
import { countInboxViews, listConversations } from "@/lib/db/conversations";
import { withOperator } from "@/lib/server/with-operator";
import { jsonOf } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** One inbox view (?view=, ?sort=, ?search=, ?botId=) with the counts of every view and the names of the caller's bots. */
export const GET = withOperator(
  async ({ request, ctx, caller }) => {
    const params = conversationListQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
    const me = caller.operator.id;
    const [conversations, counts, bots] = await Promise.all([
      listConversations(ctx.db, { ...params, me, bots: caller.bots }),
      countInboxViews(ctx.db, me, caller.bots),
      listBotLabels(ctx.db, caller.bots),
    ]);
    return jsonOf(conversationListResponse, { conversations, counts, bots });
  },
  { role: "agent" },
);

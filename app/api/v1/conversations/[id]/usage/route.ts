import { conversationUsageResponse } from "@/lib/api/usage";
import { getConversationUsage } from "@/lib/api/conversations/get-conversation-usage";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** The conversation page's total: tokens and spend of all its turns, and apart of its replays. */
export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    return jsonOf(conversationUsageResponse, await getConversationUsage(ctx.db, idParam(params.id)));
  },
  { role: "agent", scope: "conversation" },
);

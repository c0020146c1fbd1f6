import { getConversationStats } from "@/lib/api/conversations/get-conversation-stats";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";
import { conversationStatsResponse } from "@/lib/api/conversations/schema";

export const dynamic = "force-dynamic";

/** Activity per hour over two days and the agent's turn latencies, for the charts. */
export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    return jsonOf(conversationStatsResponse, await getConversationStats(ctx.db, idParam(params.id)));
  },
  { role: "agent", scope: "conversation" },
);

import { findConversation } from "@/lib/db/conversations";
import { conversationStats } from "@/lib/db/stats";
import { notFound } from "@/lib/errors";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";
import { conversationStatsResponse } from "@/lib/api/conversations";

export const dynamic = "force-dynamic";

/** Activity per hour over two days and the agent's turn latencies, for the charts. */
export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    const id = idParam(params.id);
    if (!(await findConversation(ctx.db, id))) throw notFound("conversation");
    return jsonOf(conversationStatsResponse, await conversationStats(ctx.db, id, new Date()));
  },
  { role: "agent", scope: "conversation" },
);

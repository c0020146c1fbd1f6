import { conversationUsageResponse } from "@/lib/api/usage";
import { findConversation } from "@/lib/db/conversations";
import { replayTotals, usageTotals } from "@/lib/db/usage";
import { notFound } from "@/lib/errors";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** The conversation page's total: tokens and spend of all its turns, and apart of its replays. */
export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    const conversationId = idParam(params.id);
    if (!(await findConversation(ctx.db, conversationId))) throw notFound("conversation");
    const ever = { from: new Date(0), to: new Date("9999-12-31T00:00:00Z"), conversationId };
    const [totals, replays] = await Promise.all([usageTotals(ctx.db, ever), replayTotals(ctx.db, ever)]);
    return jsonOf(conversationUsageResponse, { conversationId, ...totals, replays });
  },
  { role: "agent", scope: "conversation" },
);

import { replyBodySchema, replyResponse } from "@/lib/api/messages/schema";
import { timelineQuery, timelineResponse } from "@/lib/api/conversations/schema";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";
import { sendOperatorMessage } from "@/lib/pipeline/operator-reply";
import { getConversationTimeline } from "@/lib/pipeline/timeline";

export const dynamic = "force-dynamic";

/** A conversation's timeline (oldest first), paged backwards with ?before=<message id>. */
export const GET = withOperator<{ id: string }>(
  async ({ request, params, ctx }) => {
    const id = idParam(params.id);
    const { before, take } = timelineQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
    return jsonOf(timelineResponse, await getConversationTimeline(ctx.db, id, { beforeId: before, take }));
  },
  { role: "agent", scope: "conversation" },
);

/** An operator's plain message to the chat (not a reply), sent through the channel and recorded: 201 once delivered, 502 when not. */
export const POST = withOperator<{ id: string }>(
  async ({ request, params, ctx, caller }) => {
    const conversationId = idParam(params.id);
    const { text } = await readJson(request, replyBodySchema);
    return jsonOf(replyResponse, await sendOperatorMessage(ctx, { conversationId, text, operator: caller.operator.name }), 201);
  },
  { role: "agent", scope: "conversation" },
);

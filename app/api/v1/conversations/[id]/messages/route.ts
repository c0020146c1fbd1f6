import { getConversationTimeline } from "@/lib/pipeline/timeline";
import { withOperator } from "@/lib/http/api";
import { idParam, jsonOf } from "@/lib/http/respond";
import { timelineQuery, timelineResponse } from "@/lib/api/conversations";

export const dynamic = "force-dynamic";

/** A conversation's timeline (oldest first), paged backwards with ?before=<message id>. */
export const GET = withOperator<{ id: string }>(async ({ request, params, ctx }) => {
  const id = idParam(params.id);
  const { before, take } = timelineQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
  return jsonOf(timelineResponse, await getConversationTimeline(ctx.db, id, { beforeId: before, take }));
});

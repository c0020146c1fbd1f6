import { z } from "zod";
import { getConversationTimeline } from "@/lib/pipeline/timeline";
import { withOperator } from "@/lib/http/api";
import { idParam, json } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

const query = z.object({ before: z.coerce.number().int().positive().optional(), take: z.coerce.number().int().min(1).max(500).default(200) });

/** A conversation's timeline (oldest first), paged backwards with ?before=<message id>. */
export const GET = withOperator<{ id: string }>(async ({ request, params, ctx }) => {
  const id = idParam(params.id);
  const { before, take } = query.parse(Object.fromEntries(new URL(request.url).searchParams));
  return json(await getConversationTimeline(ctx.db, id, { beforeId: before, take }));
});

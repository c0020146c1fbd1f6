import { z } from "zod";
import { AppError } from "@/lib/errors";
import { getConversationTimeline } from "@/lib/pipeline/timeline";
import { replyBodySchema, sendOperatorMessage } from "@/lib/pipeline/operator-reply";
import { withOperator } from "@/lib/http/api";
import { idParam, json, readJson } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

const query = z.object({ before: z.coerce.number().int().positive().optional(), take: z.coerce.number().int().min(1).max(500).default(200) });

/** A conversation's timeline (oldest first), paged backwards with ?before=<message id>. */
export const GET = withOperator<{ id: string }>(async ({ request, params, ctx }) => {
  const id = idParam(params.id);
  const { before, take } = query.parse(Object.fromEntries(new URL(request.url).searchParams));
  return json(await getConversationTimeline(ctx.db, id, { beforeId: before, take }));
});

/** An operator's plain message to the chat (not a reply), sent through the channel and recorded. */
export const POST = withOperator<{ id: string }>(async ({ request, params, ctx, caller }) => {
  const conversationId = idParam(params.id);
  const { text } = await readJson(request, replyBodySchema);
  const result = await sendOperatorMessage(ctx, { conversationId, text, operator: caller.operator.name });
  if (!result.ok) throw new AppError("bad_gateway", result.error, { envelopeId: result.envelopeId });
  return json(result, 201);
});

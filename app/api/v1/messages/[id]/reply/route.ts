import { AppError } from "@/lib/errors";
import { withOperator } from "@/lib/http/api";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";
import { sendOperatorReply } from "@/lib/pipeline/operator-reply";
import { replyBodySchema, replyResponse } from "@/lib/api/messages";

export const dynamic = "force-dynamic";

/** An operator's threaded reply to a message, sent as a native reply on the platform. */
export const POST = withOperator<{ id: string }>(async ({ request, params, ctx, caller }) => {
  const messageId = idParam(params.id);
  const { text } = await readJson(request, replyBodySchema);
  const result = await sendOperatorReply(ctx, { messageId, text, operator: caller.operator.name });
  if (!result.ok) throw new AppError("bad_gateway", result.error, { envelopeId: result.envelopeId });
  return jsonOf(replyResponse, result, 201);
});

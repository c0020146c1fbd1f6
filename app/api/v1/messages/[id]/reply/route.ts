import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";
import { sendOperatorReply } from "@/lib/pipeline/operator-reply";
import { replyBodySchema, replyResponse } from "@/lib/api/messages/schema";

export const dynamic = "force-dynamic";

/**
 * An operator's threaded reply to a message, sent as a native reply on the platform:
 * 201 once delivered (`recorded: false` with a warning when it could not be saved),
 * 502 when it was not delivered.
 */
export const POST = withOperator<{ id: string }>(
  async ({ request, params, ctx, caller }) => {
    const messageId = idParam(params.id);
    const { text } = await readJson(request, replyBodySchema);
    return jsonOf(replyResponse, await sendOperatorReply(ctx, { messageId, text, operator: caller.operator.name }), 201);
  },
  { role: "agent", scope: "message" },
);

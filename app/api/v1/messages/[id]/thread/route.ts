import { getMessageThread } from "@/lib/api/messages/get-message-thread";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";
import { messageThreadResponse } from "@/lib/api/messages/schema";

export const dynamic = "force-dynamic";

/** The reply tree around a message, read in one query. */
export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    return jsonOf(messageThreadResponse, await getMessageThread(ctx.db, idParam(params.id)));
  },
  { role: "agent", scope: "message" },
);

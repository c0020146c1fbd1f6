import { messageTurnResponse } from "@/lib/api/turns/schema";
import { getMessageTurn } from "@/lib/api/messages/get-message-turn";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** The agent turn behind a message (the user's message it answered, or the agent's answer). */
export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    return jsonOf(messageTurnResponse, await getMessageTurn(ctx.db, idParam(params.id)));
  },
  { role: "agent", scope: "message" },
);

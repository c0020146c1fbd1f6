import { messageTurnResponse } from "@/lib/api/turns";
import { findTurnForMessage } from "@/lib/db/turns";
import { notFound } from "@/lib/errors";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** The agent turn behind a message (the user's message it answered, or the agent's answer). */
export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    const turnId = await findTurnForMessage(ctx.db, idParam(params.id));
    if (turnId === null) throw notFound("turn for this message");
    return jsonOf(messageTurnResponse, { turnId });
  },
  { role: "agent", scope: "message" },
);

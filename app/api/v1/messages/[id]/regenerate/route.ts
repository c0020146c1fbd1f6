import { regenerateMessage } from "@/lib/api/messages/regenerate-message";
import { regenerateResponse } from "@/lib/api/messages/schema";
import { idParam, jsonOf } from "@/lib/http/respond";
import { withOperator } from "@/lib/server/with-operator";

export const dynamic = "force-dynamic";

/** Writes the agent's answer again with today's settings and sends it (edited in place where the platform can); 409/502 with the reason and nothing changed otherwise. */
export const POST = withOperator<{ id: string }>(
  async ({ params, ctx, caller }) => {
    const messageId = idParam(params.id);
    return jsonOf(regenerateResponse, await regenerateMessage(ctx, { messageId, operator: caller.operator.name }));
  },
  { role: "agent", scope: "message" },
);

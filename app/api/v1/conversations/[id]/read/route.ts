import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";
import { okResponse } from "@/lib/api/conversations/schema";
import { markRead } from "@/lib/pipeline/timeline";

export const dynamic = "force-dynamic";

/** Mark the conversation read (the dashboard does it when the timeline is shown; a GET never does). */
export const POST = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    await markRead(ctx.db, idParam(params.id));
    return jsonOf(okResponse, { ok: true });
  },
  { role: "agent", scope: "conversation" },
);

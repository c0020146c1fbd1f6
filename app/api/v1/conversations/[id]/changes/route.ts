import { stateChangesResponse } from "@/lib/api/conversations/schema";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";
import { conversationStateChanges } from "@/lib/inbox/state-changes";

export const dynamic = "force-dynamic";

/** Status, assignee and handoff changes, for the timeline's lines between the messages. */
export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => jsonOf(stateChangesResponse, { changes: await conversationStateChanges(ctx.db, idParam(params.id)) }),
  { role: "agent", scope: "conversation" },
);

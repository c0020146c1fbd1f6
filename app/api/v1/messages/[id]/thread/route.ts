import { messageThread } from "@/lib/db/messages";
import { notFound } from "@/lib/errors";
import { withAttachments } from "@/lib/media/attachment-views";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";
import { messageThreadResponse } from "@/lib/api/messages";

export const dynamic = "force-dynamic";

/** The reply tree around a message, read in one query. */
export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    const id = idParam(params.id);
    const thread = await messageThread(ctx.db, id);
    if (!thread) throw notFound("message");
    return jsonOf(messageThreadResponse, { ...thread, members: await withAttachments(ctx.db, thread.members) });
  },
  { role: "agent", scope: "message" },
);

import { okResponse } from "@/lib/api/conversations/schema";
import { savedReplyPatchBody, savedReplyResponse } from "@/lib/api/saved-replies";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";
import { changeSavedReply, removeSavedReply } from "@/lib/inbox/saved-replies";

export const dynamic = "force-dynamic";

export const PATCH = withOperator<{ id: string }>(
  async ({ request, params, ctx, caller }) => {
    const id = idParam(params.id);
    const body = await readJson(request, savedReplyPatchBody);
    return jsonOf(savedReplyResponse, { savedReply: await changeSavedReply(ctx.db, caller.operator, id, body) });
  },
  { role: "agent" },
);

export const DELETE = withOperator<{ id: string }>(
  async ({ params, ctx, caller }) => {
    await removeSavedReply(ctx.db, caller.operator, idParam(params.id));
    return jsonOf(okResponse, { ok: true });
  },
  { role: "agent" },
);

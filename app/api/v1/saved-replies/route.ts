import { savedReplyCreateBody, savedReplyListQuery, savedReplyListResponse, savedReplyResponse } from "@/lib/api/saved-replies";
import { withOperator } from "@/lib/server/with-operator";
import { jsonOf, readJson } from "@/lib/http/respond";
import { addSavedReply, savedRepliesFor } from "@/lib/inbox/saved-replies";

export const dynamic = "force-dynamic";

export const GET = withOperator(
  async ({ request, ctx, caller }) => {
    const query = savedReplyListQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
    return jsonOf(savedReplyListResponse, { savedReplies: await savedRepliesFor(ctx.db, caller.operator, query, caller.bots) });
  },
  { role: "agent" },
);

export const POST = withOperator(
  async ({ request, ctx, caller }) => {
    const body = await readJson(request, savedReplyCreateBody);
    return jsonOf(savedReplyResponse, { savedReply: await addSavedReply(ctx.db, caller.operator, body) }, 201);
  },
  { role: "agent" },
);

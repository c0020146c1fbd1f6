import { conversationDeleteResponse, conversationPatchBody, conversationResponse } from "@/lib/api/conversations/schema";
import { getConversation } from "@/lib/api/conversations/get-conversation";
import { updateConversation } from "@/lib/api/conversations/update-conversation";
import { withOperator } from "@/lib/server/with-operator";
import { deleteConversationData } from "@/lib/pipeline/delete-conversation";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    return jsonOf(conversationResponse, { conversation: await getConversation(ctx.db, idParam(params.id)) });
  },
  { role: "agent", scope: "conversation" },
);

/** { status?, snoozedUntil?, assigneeId?, agentEnabled? }: each status or assignee change is an envelope in the history. */
export const PATCH = withOperator<{ id: string }>(
  async ({ request, params, ctx, caller }) => {
    const id = idParam(params.id);
    const body = await readJson(request, conversationPatchBody);
    return jsonOf(conversationResponse, { conversation: await updateConversation(ctx.turnDeps, id, body, caller.operator) });
  },
  { role: "agent", scope: "conversation" },
);

/** Admins: deletes the conversation's data for good (messages, envelopes, turns, forks) and the files nothing else uses. */
export const DELETE = withOperator<{ id: string }>(
  async ({ params, ctx, caller }) => jsonOf(conversationDeleteResponse, await deleteConversationData(ctx.db, caller, idParam(params.id))),
  { role: "admin", to: "delete a conversation's data", scope: "conversation" },
);

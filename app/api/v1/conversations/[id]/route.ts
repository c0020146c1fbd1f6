import { conversationDeleteResponse, conversationPatchBody, conversationResponse } from "@/lib/api/conversations";
import { findConversation } from "@/lib/db/conversations";
import { notFound } from "@/lib/errors";
import { withOperator } from "@/lib/server/with-operator";
import { changeConversation } from "@/lib/pipeline/conversation-status";
import { deleteConversationData } from "@/lib/pipeline/delete-conversation";
import { handoffView } from "@/lib/pipeline/handoff";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    const conversation = await findConversation(ctx.db, idParam(params.id));
    if (!conversation) throw notFound("conversation");
    return jsonOf(conversationResponse, { conversation: { ...conversation, handoff: handoffView(conversation) } });
  },
  { role: "agent", scope: "conversation" },
);

/** { status?, snoozedUntil?, assigneeId?, agentEnabled? }: each status or assignee change is an envelope in the history. */
export const PATCH = withOperator<{ id: string }>(
  async ({ request, params, ctx, caller }) => {
    const id = idParam(params.id);
    const body = await readJson(request, conversationPatchBody);
    await changeConversation(ctx.turnDeps, id, body, caller.operator);
    const conversation = await findConversation(ctx.db, id);
    if (!conversation) throw notFound("conversation");
    return jsonOf(conversationResponse, { conversation: { ...conversation, handoff: handoffView(conversation) } });
  },
  { role: "agent", scope: "conversation" },
);

/** Admins: deletes the conversation's data for good (messages, envelopes, turns, forks) and the files nothing else uses. */
export const DELETE = withOperator<{ id: string }>(
  async ({ params, ctx, caller }) => jsonOf(conversationDeleteResponse, await deleteConversationData(ctx.db, caller, idParam(params.id))),
  { role: "agent", scope: "conversation" },
);

import { deleteMessage } from "@/lib/api/messages/delete-message";
import { editMessage } from "@/lib/api/messages/edit-message";
import { changedMessageResponse, editMessageBody } from "@/lib/api/messages/schema";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";
import { withOperator } from "@/lib/server/with-operator";

export const dynamic = "force-dynamic";

/** Edits the agent's answer or an operator's message in the chat and in the history (409 with the reason when it cannot be). */
export const PATCH = withOperator<{ id: string }>(
  async ({ request, params, ctx, caller }) => {
    const messageId = idParam(params.id);
    const { text } = await readJson(request, editMessageBody);
    return jsonOf(changedMessageResponse, await editMessage(ctx, { messageId, text, operator: caller.operator.name }));
  },
  { role: "agent", scope: "message" },
);

/** Deletes the agent's answer or an operator's message from the chat; the history keeps it, marked deleted by the operator. */
export const DELETE = withOperator<{ id: string }>(
  async ({ params, ctx, caller }) => {
    return jsonOf(changedMessageResponse, await deleteMessage(ctx, { messageId: idParam(params.id), operator: caller.operator.name }));
  },
  { role: "agent", scope: "message" },
);

import { conversationPatchBody, conversationResponse } from "@/lib/api/conversations";
import { findConversation, setAgentEnabled } from "@/lib/db/conversations";
import { notFound } from "@/lib/errors";
import { withOperator } from "@/lib/http/api";
import { handoffView } from "@/lib/pipeline/handoff";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

export const GET = withOperator<{ id: string }>(async ({ params, ctx }) => {
  const conversation = await findConversation(ctx.db, idParam(params.id));
  if (!conversation) throw notFound("conversation");
  return jsonOf(conversationResponse, { conversation: { ...conversation, handoff: handoffView(conversation) } });
});

/** { agentEnabled: false } pauses the agent here; operators answer by hand. */
export const PATCH = withOperator<{ id: string }>(async ({ request, params, ctx }) => {
  const id = idParam(params.id);
  const { agentEnabled } = await readJson(request, conversationPatchBody);
  if (!(await findConversation(ctx.db, id))) throw notFound("conversation");
  const conversation = await setAgentEnabled(ctx.db, id, agentEnabled);
  return jsonOf(conversationResponse, { conversation: { ...conversation, handoff: handoffView(conversation) } });
});

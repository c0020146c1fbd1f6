import { z } from "zod";
import { findConversation, setAgentEnabled } from "@/lib/db/conversations";
import { notFound } from "@/lib/errors";
import { withOperator } from "@/lib/http/api";
import { idParam, json, readJson } from "@/lib/http/respond";
import { handoffView } from "@/lib/pipeline/handoff";

export const dynamic = "force-dynamic";

const patchSchema = z.object({ agentEnabled: z.boolean() }).strict();

export const GET = withOperator<{ id: string }>(async ({ params, ctx }) => {
  const conversation = await findConversation(ctx.db, idParam(params.id));
  if (!conversation) throw notFound("conversation");
  return json({ conversation: { ...conversation, handoff: handoffView(conversation) } });
});

/** { agentEnabled: false } pauses the agent here; operators answer by hand. */
export const PATCH = withOperator<{ id: string }>(async ({ request, params, ctx }) => {
  const id = idParam(params.id);
  const { agentEnabled } = await readJson(request, patchSchema);
  if (!(await findConversation(ctx.db, id))) throw notFound("conversation");
  return json({ conversation: await setAgentEnabled(ctx.db, id, agentEnabled) });
});

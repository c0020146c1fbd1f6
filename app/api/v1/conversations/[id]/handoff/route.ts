import { handoffResponse } from "@/lib/api/conversations/schema";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";
import { changeHandoff, handoffBodySchema } from "@/lib/pipeline/handoff";

export const dynamic = "force-dynamic";

/** { action: "request" | "take" | "release", reason? }: moves the conversation's handoff (409 on an invalid transition). */
export const POST = withOperator<{ id: string }>(
  async ({ request, params, ctx, caller }) => {
    const id = idParam(params.id);
    const body = await readJson(request, handoffBodySchema);
    return jsonOf(handoffResponse, { handoff: await changeHandoff(ctx.turnDeps, id, body, caller.operator) });
  },
  { role: "agent", scope: "conversation" },
);

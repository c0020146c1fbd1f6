import { handoffResponse } from "@/lib/api/conversations";
import { withOperator } from "@/lib/http/api";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";
import { changeHandoff, handoffBodySchema } from "@/lib/pipeline/handoff";

export const dynamic = "force-dynamic";

/** { action: "request" | "take" | "release", reason? }: moves the conversation's handoff (409 on an invalid transition). */
export const POST = withOperator<{ id: string }>(async ({ request, params, ctx, caller }) => {
  const id = idParam(params.id);
  const body = await readJson(request, handoffBodySchema);
  return jsonOf(handoffResponse, { handoff: await changeHandoff(ctx.turnDeps, id, body, caller.operator) });
});

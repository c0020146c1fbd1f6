import { applyResponse } from "@/lib/api/replays";
import { requireAdmin } from "@/lib/auth/roles";
import { findReplay } from "@/lib/db/replays";
import { notFound } from "@/lib/errors";
import { withOperator } from "@/lib/http/api";
import { idParam, jsonOf } from "@/lib/http/respond";
import { applyVariant } from "@/lib/replay/apply";

export const dynamic = "force-dynamic";

/** What the replay tried becomes the settings (each change in the change log). */
export const POST = withOperator<{ id: string }>(async ({ params, ctx, caller }) => {
  requireAdmin(caller, "change settings");
  const replay = await findReplay(ctx.db, idParam(params.id));
  if (!replay) throw notFound("replay");
  const result = await applyVariant(ctx.db, replay.variant, caller.operator.name, [replay.conversationId]);
  ctx.worker.kick();
  return jsonOf(applyResponse, result);
});

import { applyResponse } from "@/lib/api/replays";
import { findReplay } from "@/lib/db/replays";
import { notFound } from "@/lib/errors";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";
import { applyVariant } from "@/lib/replay/apply";

export const dynamic = "force-dynamic";

/** What the replay tried becomes the settings (each change in the change log). */
export const POST = withOperator<{ id: string }>(
  async ({ params, ctx, caller }) => {
    const replay = await findReplay(ctx.db, idParam(params.id));
    if (!replay) throw notFound("replay");
    const result = await applyVariant(ctx.db, replay.variant, caller.operator.name, [replay.conversationId]);
    ctx.worker.kick();
    return jsonOf(applyResponse, result);
  },
  { role: "admin", to: "change settings", scope: "replay" },
);

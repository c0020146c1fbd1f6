import { applyResponse } from "@/lib/api/replays/schema";
import { applyReplay } from "@/lib/api/replays/apply-replay";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** What the replay tried becomes the settings (each change in the change log). */
export const POST = withOperator<{ id: string }>(
  async ({ params, ctx, caller }) => {
    return jsonOf(applyResponse, await applyReplay(ctx, idParam(params.id), caller.operator.name));
  },
  { role: "admin", to: "change settings", scope: "replay" },
);

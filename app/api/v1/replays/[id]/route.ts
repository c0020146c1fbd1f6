import { replayResponse } from "@/lib/api/replays";
import { deleteReplay, findReplay } from "@/lib/db/replays";
import { notFound } from "@/lib/errors";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, json, jsonOf } from "@/lib/http/respond";
import { replayView } from "@/lib/replay/view";

export const dynamic = "force-dynamic";

export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    const replay = await findReplay(ctx.db, idParam(params.id));
    if (!replay) throw notFound("replay");
    return jsonOf(replayResponse, { replay: replayView(replay) });
  },
  { role: "agent", scope: "replay" },
);

export const DELETE = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    const { count } = await deleteReplay(ctx.db, idParam(params.id));
    if (!count) throw notFound("replay");
    return json({ ok: true });
  },
  { role: "agent", scope: "replay" },
);

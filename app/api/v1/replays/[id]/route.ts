import { replayResponse } from "@/lib/api/replays";
import { findReplay } from "@/lib/db/replays";
import { notFound } from "@/lib/errors";
import { withOperator } from "@/lib/http/api";
import { idParam, jsonOf } from "@/lib/http/respond";
import { replayView } from "@/lib/replay/view";

export const dynamic = "force-dynamic";

export const GET = withOperator<{ id: string }>(async ({ params, ctx }) => {
  const replay = await findReplay(ctx.db, idParam(params.id));
  if (!replay) throw notFound("replay");
  return jsonOf(replayResponse, { replay: replayView(replay) });
});

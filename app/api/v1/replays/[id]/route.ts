import { replayResponse } from "@/lib/api/replays/schema";
import { deleteReplay } from "@/lib/api/replays/delete-replay";
import { getReplay } from "@/lib/api/replays/get-replay";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, json, jsonOf } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    return jsonOf(replayResponse, { replay: await getReplay(ctx.db, idParam(params.id)) });
  },
  { role: "agent", scope: "replay" },
);

export const DELETE = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    return json(await deleteReplay(ctx.db, idParam(params.id)));
  },
  { role: "agent", scope: "replay" },
);

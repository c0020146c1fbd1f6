import { replayListResponse, replayRequestSchema, replayResponse } from "@/lib/api/replays/schema";
import { listTurnReplays } from "@/lib/api/turns/list-turn-replays";
import { replayTurn } from "@/lib/api/turns/replay-turn";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** Runs the turn again with the variant (it answers once the model has); nothing reaches a platform, the history or the queue. An agent's replays are counted against a daily quota (429). */
export const POST = withOperator<{ id: string }>(
  async ({ request, params, ctx, caller }) => {
    const id = idParam(params.id);
    const body = await readJson(request, replayRequestSchema, 64 * 1024);
    return jsonOf(replayResponse, { replay: await replayTurn(ctx.replay, id, body, caller) }, 201);
  },
  { role: "agent", scope: "turn" },
);

export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    return jsonOf(replayListResponse, { replays: await listTurnReplays(ctx.db, idParam(params.id)) });
  },
  { role: "agent", scope: "turn" },
);

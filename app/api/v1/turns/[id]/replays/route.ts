import { replayListResponse, replayRequestSchema, replayResponse } from "@/lib/api/replays";
import { findReplay, listTurnReplays } from "@/lib/db/replays";
import { findTurn } from "@/lib/db/turns";
import { notFound } from "@/lib/errors";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";
import { checkVariantAccess } from "@/lib/replay/access";
import { replayAsker } from "@/lib/replay/quota";
import { replayTurn } from "@/lib/replay/run-replay";
import { replayView } from "@/lib/replay/view";

export const dynamic = "force-dynamic";

/** Runs the turn again with the variant (it answers once the model has); nothing reaches a platform, the history or the queue. An agent's replays are counted against a daily quota (429). */
export const POST = withOperator<{ id: string }>(
  async ({ request, params, ctx, caller }) => {
    const id = idParam(params.id);
    const body = await readJson(request, replayRequestSchema, 64 * 1024);
    checkVariantAccess(caller, body);
    const replayId = await replayTurn(ctx.replay, id, body, replayAsker(caller));
    return jsonOf(replayResponse, { replay: replayView((await findReplay(ctx.db, replayId))!) }, 201);
  },
  { role: "agent", scope: "turn" },
);

export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    const id = idParam(params.id);
    if (!(await findTurn(ctx.db, id))) throw notFound("turn");
    return jsonOf(replayListResponse, { replays: (await listTurnReplays(ctx.db, id)).map(replayView) });
  },
  { role: "agent", scope: "turn" },
);

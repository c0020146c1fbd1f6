import { applyResponse } from "@/lib/api/replays";
import { findRun } from "@/lib/db/replays";
import { notFound } from "@/lib/errors";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";
import { applyVariant } from "@/lib/replay/apply";

export const dynamic = "force-dynamic";

/** What the run tried becomes the settings (each change in the change log). */
export const POST = withOperator<{ id: string; runId: string }>(
  async ({ params, ctx, caller }) => {
    const run = await findRun(ctx.db, idParam(params.id), idParam(params.runId));
    if (!run) throw notFound("run");
    const replayed = await ctx.db.prisma.replay.findMany({ where: { runId: run.id }, select: { conversationId: true } });
    const result = await applyVariant(
      ctx.db,
      run.variant,
      caller.operator.name,
      replayed.map((r) => r.conversationId),
    );
    ctx.worker.kick();
    return jsonOf(applyResponse, result);
  },
  { role: "admin", to: "change settings", scope: "dataset" },
);

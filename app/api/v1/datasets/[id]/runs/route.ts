import { replayRequestSchema, runResponse } from "@/lib/api/replays/schema";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";
import { checkVariantAccess } from "@/lib/replay/access";
import { startRun } from "@/lib/replay/datasets";
import { replayAsker } from "@/lib/replay/quota";

export const dynamic = "force-dynamic";

/** Starts the run and answers at once; its progress and results are at GET …/runs/{runId}. */
export const POST = withOperator<{ id: string }>(
  async ({ request, params, ctx, caller }) => {
    const id = idParam(params.id);
    const body = await readJson(request, replayRequestSchema, 64 * 1024);
    checkVariantAccess(caller, body);
    const { run } = await startRun(ctx.replay, id, body, replayAsker(caller));
    return jsonOf(
      runResponse,
      { run: { ...run, mode: body.mode, status: "running", variant: run.variant as Record<string, unknown> } },
      201,
    );
  },
  { role: "agent", scope: "dataset" },
);

import { applyResponse } from "@/lib/api/replays/schema";
import { applyRun } from "@/lib/api/datasets/apply-run";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** What the run tried becomes the settings (each change in the change log). */
export const POST = withOperator<{ id: string; runId: string }>(
  async ({ params, ctx, caller }) => {
    const ids = { datasetId: idParam(params.id), runId: idParam(params.runId) };
    return jsonOf(applyResponse, await applyRun(ctx, ids, caller.operator.name));
  },
  { role: "admin", to: "change settings", scope: "dataset" },
);

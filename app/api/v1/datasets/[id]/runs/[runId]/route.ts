import { runReportQuery, runReportResponse } from "@/lib/api/replays/schema";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";
import { runReport } from "@/lib/replay/datasets";

export const dynamic = "force-dynamic";

export const GET = withOperator<{ id: string; runId: string }>(
  async ({ request, params, ctx }) => {
    const query = runReportQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
    const report = await runReport(ctx.replay, idParam(params.id), idParam(params.runId), query.compareTo);
    return jsonOf(runReportResponse, report);
  },
  { role: "agent", scope: "dataset" },
);

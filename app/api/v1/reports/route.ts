import { getReport } from "@/lib/api/reports/get-report";
import { reportQuerySchema, reportResponse } from "@/lib/api/reports/schema";
import { jsonOf } from "@/lib/http/respond";
import { withOperator } from "@/lib/server/with-operator";

export const dynamic = "force-dynamic";

/** The inbox report: ?from=&to=&botId=&operatorId=; an agent limited to some bots sees theirs only. */
export const GET = withOperator(
  async ({ request, ctx, caller }) => {
    const query = reportQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
    return jsonOf(reportResponse, await getReport(ctx.db, query, caller.bots));
  },
  { role: "agent" },
);

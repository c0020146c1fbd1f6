import { getReport } from "@/lib/api/reports/get-report";
import { reportCsv } from "@/lib/api/reports/report-csv";
import { reportQuerySchema } from "@/lib/api/reports/schema";
import { withOperator } from "@/lib/server/with-operator";

export const dynamic = "force-dynamic";

/** The inbox report as CSV, same query and scope as GET /reports. */
export const GET = withOperator(
  async ({ request, ctx, caller }) => {
    const query = reportQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
    const day = (d: Date) => d.toISOString().slice(0, 10);
    return new Response(reportCsv(await getReport(ctx.db, query, caller.bots)), {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="switchboard-report-${day(query.from)}-to-${day(query.to)}.csv"`,
        "cache-control": "no-store",
      },
    });
  },
  { role: "agent" },
);

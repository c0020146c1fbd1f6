import { usageQuerySchema, usageResponse } from "@/lib/api/usage";
import { withOperator } from "@/lib/server/with-operator";
import { jsonOf } from "@/lib/http/respond";
import { usageReport } from "@/lib/usage/report";

export const dynamic = "force-dynamic";

/** Tokens and spend: ?from=&to=&groupBy=day|model|conversation; an agent limited to some bots sees theirs only. */
export const GET = withOperator(
  async ({ request, ctx, caller }) => {
    const query = usageQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
    return jsonOf(usageResponse, await usageReport(ctx.db, query, caller.bots));
  },
  { role: "agent" },
);

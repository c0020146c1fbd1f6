import { operatorsResponse } from "@/lib/api/operators";
import { listOperators } from "@/lib/db/operators";
import { withOperator } from "@/lib/http/api";
import { jsonOf } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

export const GET = withOperator(async ({ ctx, caller }) => {
  const operators = await listOperators(ctx.db);
  return jsonOf(operatorsResponse, { operators, me: caller.via === "session" ? caller.operator.id : null });
});

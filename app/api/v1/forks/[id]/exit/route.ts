import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";
import { forkResponse } from "@/lib/api/forks/schema";
import { exitFork, exitStrategySchema } from "@/lib/pipeline/forks";

export const dynamic = "force-dynamic";

/** Leaves an interactive fork: { strategy: "discard" | "save" | "report" }. */
export const POST = withOperator<{ id: string }>(
  async ({ request, params, ctx, caller }) => {
    const id = idParam(params.id);
    const { strategy } = await readJson(request, exitStrategySchema);
    return jsonOf(forkResponse, { fork: await exitFork(ctx.turnDeps, id, strategy, `operator:${caller.operator.name}`) });
  },
  { role: "agent", scope: "fork" },
);

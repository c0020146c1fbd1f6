import { z } from "zod";
import { withOperator } from "@/lib/http/api";
import { json, readJson } from "@/lib/http/respond";
import { exitFork, exitStrategySchema } from "@/lib/pipeline/forks";

export const dynamic = "force-dynamic";

/** Leaves an interactive fork: { strategy: "discard" | "save" | "report" }. */
export const POST = withOperator<{ id: string }>(async ({ request, params, ctx, caller }) => {
  const id = z.coerce.number().int().positive().parse(params.id);
  const { strategy } = await readJson(request, exitStrategySchema);
  return json({ fork: await exitFork(ctx.turnDeps, id, strategy, `operator:${caller.operator.name}`) });
});

import { withOperator } from "@/lib/http/api";
import { idParam, json } from "@/lib/http/respond";
import { resumeFork } from "@/lib/pipeline/forks";

export const dynamic = "force-dynamic";

/** Makes the fork the conversation's active interactive fork; 409 if another one is. */
export const POST = withOperator<{ id: string }>(async ({ params, ctx, caller }) => {
  const id = idParam(params.id);
  return json({ fork: await resumeFork(ctx.db, id, `operator:${caller.operator.name}`) });
});
